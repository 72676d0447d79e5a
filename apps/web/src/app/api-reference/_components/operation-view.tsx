import { cx } from "@benchboard/ui";
import { DocText } from "./doc-text";
import type { Operation } from "./openapi-view";
import { SchemaFields, TypeName } from "./schema-view";

const METHOD_STYLE: Record<Operation["method"], string> = {
  get: "bg-sky-100 text-sky-800",
  post: "bg-emerald-100 text-emerald-800",
  put: "bg-amber-100 text-amber-900",
  patch: "bg-amber-100 text-amber-900",
  delete: "bg-rose-100 text-rose-800",
};

export function MethodBadge({ method }: { method: Operation["method"] }) {
  return (
    <span
      className={cx(
        "inline-block w-16 shrink-0 rounded px-1.5 py-0.5 text-center font-mono text-xs font-semibold uppercase",
        METHOD_STYLE[method],
      )}
    >
      {method}
    </span>
  );
}

/** One operation: what it does, its parameters, its body and its answers. */
export function OperationView({ op, basePath }: { op: Operation; basePath: string }) {
  return (
    <section
      id={op.id}
      aria-label={`${op.method.toUpperCase()} ${op.path}`}
      className="scroll-mt-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
    >
      <h3 className="flex flex-wrap items-center gap-2">
        <MethodBadge method={op.method} />
        <code className="font-mono text-sm font-semibold text-slate-900">
          {basePath}
          {op.path}
        </code>
      </h3>
      {op.summary && <p className="mt-2 font-medium text-slate-800">{op.summary}</p>}
      <DocText text={op.description} className="mt-1 text-sm text-slate-600" />

      {op.parameters.length > 0 && (
        <div className="mt-3">
          <h4 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Parameters</h4>
          <table className="w-full text-left text-sm" aria-label="Parameters">
            <tbody>
              {op.parameters.map((p) => (
                <tr key={`${p.in}:${p.name}`} className="border-t border-slate-100 align-top first:border-0">
                  <th scope="row" className="w-48 py-1.5 pr-3 font-mono text-xs font-medium text-slate-800">
                    {p.name}
                    {p.required && <span className="ml-1 text-rose-700">*</span>}
                  </th>
                  <td className="w-20 py-1.5 pr-3 text-xs text-slate-500">{p.in}</td>
                  <td className="py-1.5">
                    <TypeName schema={p.schema} />
                    <DocText text={p.description} className="mt-0.5 text-xs text-slate-600" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {op.body && (
        <div className="mt-3">
          <h4 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">
            Request body{op.body.required ? "" : " (optional)"}
          </h4>
          {op.body.contentTypes.map((c) => (
            <div key={c.type} className="mt-1">
              <p className="text-xs text-slate-500">
                <code className="font-mono">{c.type}</code>
                {c.schema && (
                  <>
                    {" · "}
                    <TypeName schema={c.schema} />
                  </>
                )}
              </p>
              {c.schema && !c.schema.$ref && <SchemaFields schema={c.schema} />}
            </div>
          ))}
        </div>
      )}

      <div className="mt-3">
        <h4 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">Responses</h4>
        <table className="w-full text-left text-sm" aria-label="Responses">
          <tbody>
            {op.responses.map((r) => (
              <tr key={r.status} className="border-t border-slate-100 align-top first:border-0">
                <th
                  scope="row"
                  className={cx(
                    "w-16 py-1.5 pr-3 font-mono text-xs",
                    Number(r.status) >= 400 ? "text-rose-700" : "text-emerald-700",
                  )}
                >
                  {r.status}
                </th>
                <td className="py-1.5">
                  <DocText text={r.description} className="text-xs text-slate-600" />
                  {r.schema && (
                    <div className="mt-0.5">
                      <TypeName schema={r.schema} />
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
