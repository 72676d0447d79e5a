import { DocText } from "./doc-text";
import { constraints, type Json, properties, refName, typeLabel } from "./openapi-view";

/** Anchor of a component schema on the page. */
export const schemaAnchor = (name: string) => `schema-${name}`;

/** A type, linked to its schema when it is a named one. */
export function TypeName({ schema }: { schema: Json | null }) {
  const ref = refName(schema) ?? (schema?.type === "array" ? refName((schema.items as Json) ?? null) : null);
  const label = typeLabel(schema);
  if (!ref) return <span className="font-mono text-xs text-violet-800">{label}</span>;
  return (
    <a href={`#${schemaAnchor(ref)}`} className="font-mono text-xs text-sky-700 hover:underline">
      {label}
    </a>
  );
}

/**
 * An object schema's fields as a table (name, type, bounds, description); nested objects as
 * tables of their own, to a few levels; any other schema as its type.
 */
export function SchemaFields({ schema, depth = 0 }: { schema: Json | null; depth?: number }) {
  const fields = properties(schema);
  if (fields.length === 0) {
    return (
      <p className="text-sm">
        <TypeName schema={schema} />
        <Bounds schema={schema} />
      </p>
    );
  }
  return (
    <table className="w-full text-left text-sm" aria-label={depth === 0 ? "Fields" : undefined}>
      <tbody>
        {fields.map((f) => {
          const nested = depth < 2 && properties(f.schema).length > 0 && !refName(f.schema);
          return (
            <tr key={f.name} className="border-t border-slate-100 align-top first:border-0">
              <th scope="row" className="w-48 py-1.5 pr-3 font-mono text-xs font-medium text-slate-800">
                {f.name}
                {f.required && <span className="ml-1 text-rose-700">*</span>}
              </th>
              <td className="py-1.5">
                {!nested && <TypeName schema={f.schema} />}
                <Bounds schema={f.schema} />
                <DocText
                  text={typeof f.schema?.description === "string" ? f.schema.description : null}
                  className="mt-0.5 text-xs text-slate-600"
                />
                {nested && (
                  <div className="mt-1 rounded border border-slate-200 p-2">
                    <SchemaFields schema={f.schema} depth={depth + 1} />
                  </div>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Bounds({ schema }: { schema: Json | null }) {
  const c = constraints(schema);
  return c.length ? <span className="ml-2 text-xs text-slate-500">{c.join(", ")}</span> : null;
}
