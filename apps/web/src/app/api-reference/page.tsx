import { openApiDocument } from "@benchboard/api/rest/openapi";
import { PageHeader } from "../_components/page-header";
import { DocText } from "./_components/doc-text";
import { type Json, operationsByTag } from "./_components/openapi-view";
import { MethodBadge, OperationView } from "./_components/operation-view";
import { SchemaFields, schemaAnchor } from "./_components/schema-view";

export const metadata = { title: "API reference" };

/** The document served at /api/v1/openapi.json, built once per server process. */
let cached: Json | null = null;

/**
 * The REST API as the served OpenAPI document describes it: every operation with its parameters,
 * body and answers, then the schemas they refer to. Rendered on the server from the same document,
 * so the page and the JSON never disagree, and the page needs no script of its own.
 */
export default function ApiReferencePage() {
  cached ??= openApiDocument() as Json;
  const doc = cached;
  const info = (doc.info ?? {}) as Json;
  const basePath = String(((doc.servers as Json[] | undefined)?.[0]?.url as string | undefined) ?? "");
  const schemes = Object.values(((doc.components as Json | undefined)?.securitySchemes ?? {}) as Record<string, Json>);
  const schemas = Object.entries(((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>);
  const groups = operationsByTag(doc);
  return (
    <>
      <PageHeader
        title="API reference"
        subtitle={
          <>
            {String(info.title ?? "API")} version {String(info.version ?? "")} · the OpenAPI document itself:{" "}
            <a href="/api/v1/openapi.json" className="text-sky-700 hover:underline">
              /api/v1/openapi.json
            </a>
          </>
        }
      />
      <div className="grid gap-8 xl:grid-cols-[16rem_minmax(0,1fr)]">
        <nav aria-label="API operations" className="self-start text-sm xl:sticky xl:top-4">
          {groups.map((g) => (
            <div key={g.tag} className="mb-3">
              <a
                href={`#tag-${g.tag}`}
                className="text-xs font-semibold uppercase tracking-wide text-slate-500 hover:underline"
              >
                {g.tag}
              </a>
              <ul className="mt-1 space-y-0.5">
                {g.operations.map((op) => (
                  <li key={op.id}>
                    <a
                      href={`#${op.id}`}
                      className="flex items-center gap-1.5 truncate text-slate-700 hover:text-sky-700"
                    >
                      <MethodBadge method={op.method} />
                      <span className="truncate font-mono text-xs">{op.path}</span>
                    </a>
                  </li>
                ))}
              </ul>
            </div>
          ))}
          <a href="#schemas" className="text-xs font-semibold uppercase tracking-wide text-slate-500 hover:underline">
            Schemas
          </a>
        </nav>

        <div className="min-w-0 space-y-8">
          <section aria-label="About the API" className="max-w-4xl space-y-2 text-sm text-slate-700">
            <DocText text={typeof info.description === "string" ? info.description : null} />
            {schemes.map((s) => (
              <DocText
                key={String(s.scheme ?? s.type)}
                text={typeof s.description === "string" ? s.description : null}
              />
            ))}
            <p>
              Every path below is relative to <code className="font-mono">{basePath || "/"}</code>. Fields marked{" "}
              <span className="text-rose-700">*</span> are required.
            </p>
          </section>

          {groups.map((g) => (
            <section
              key={g.tag}
              id={`tag-${g.tag}`}
              aria-label={`${g.tag} operations`}
              className="scroll-mt-4 space-y-4"
            >
              <h2 className="text-lg font-semibold capitalize text-slate-900">{g.tag}</h2>
              {g.operations.map((op) => (
                <OperationView key={op.id} op={op} basePath={basePath} />
              ))}
            </section>
          ))}

          <section id="schemas" aria-label="Schemas" className="scroll-mt-4 space-y-4">
            <h2 className="text-lg font-semibold text-slate-900">Schemas</h2>
            {schemas.map(([name, schema]) => (
              <section
                key={name}
                id={schemaAnchor(name)}
                aria-label={`Schema ${name}`}
                className="scroll-mt-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
              >
                <h3 className="font-mono text-sm font-semibold text-slate-900">{name}</h3>
                <DocText
                  text={typeof schema.description === "string" ? schema.description : null}
                  className="mt-1 text-sm text-slate-600"
                />
                <div className="mt-2">
                  <SchemaFields schema={schema} />
                </div>
              </section>
            ))}
          </section>
        </div>
      </div>
    </>
  );
}
