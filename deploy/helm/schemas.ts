import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { goModuleDir, TOOLS_DIR, toolVersions } from "./tools";

/**
 * JSON schemas in kubeconform's layout (`<kind>-<group>-<version>.json`, `<kind>-<version>.json`
 * for the core group) made from the pinned modules' own files: the Kubernetes OpenAPI document
 * (k8s.io/kubernetes `api/openapi-spec/swagger.json`) and KEDA's CRDs
 * (github.com/kedacore/keda/v2 `config/crd/bases`). Objects may carry no field their schema
 * does not name, as the API server's strict field validation demands.
 *
 * `tsx deploy/helm/schemas.ts [dir]` writes them; the chart's test calls `ensureSchemas()`.
 */

type Schema = { [key: string]: unknown };

const KEDA_CRDS = ["keda.sh_scaledobjects.yaml", "keda.sh_triggerauthentications.yaml"];

export function schemaDir(): string {
  const v = toolVersions();
  return path.join(TOOLS_DIR, `schemas-k8s-${v.KUBERNETES_VERSION}-keda-${v.KEDA_VERSION}`);
}

/** The schema directory for the pinned versions, written once (a marker file says it is whole). */
export function ensureSchemas(dir = schemaDir()): string {
  if (existsSync(path.join(dir, ".complete"))) return dir;
  const v = toolVersions();
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const written = [
    ...writeKubernetesSchemas(goModuleDir("k8s.io/kubernetes", v.KUBERNETES_VERSION), partial),
    ...writeCrdSchemas(goModuleDir("github.com/kedacore/keda/v2", v.KEDA_VERSION), partial),
  ];
  writeFileSync(path.join(partial, ".complete"), `${written.length} schemas\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  return dir;
}

/** kubeconform's file name for a kind: the group's first part, then the version. */
export function schemaFileName(kind: string, group: string, version: string): string {
  const groupPart = group.split(".")[0];
  return `${kind.toLowerCase()}${groupPart ? `-${groupPart}` : ""}-${version}.json`.toLowerCase();
}

function writeKubernetesSchemas(moduleDir: string, outDir: string): string[] {
  const swagger = JSON.parse(readFileSync(path.join(moduleDir, "api/openapi-spec/swagger.json"), "utf8")) as {
    definitions: Record<string, Schema>;
  };
  const definitions = withQuantities(swagger.definitions);
  const written: string[] = [];
  for (const definition of Object.values(definitions)) {
    const gvks = definition["x-kubernetes-group-version-kind"] as
      | { group: string; version: string; kind: string }[]
      | undefined;
    // Only top-level objects name their kind; several (DeleteOptions, WatchEvent) name many.
    if (!gvks || gvks.length !== 1) continue;
    const [gvk] = gvks as [{ group: string; version: string; kind: string }];
    const closure: Record<string, Schema> = {};
    collectReferences(definition, definitions, closure);
    // Every definition the kind reaches travels in its file: `#/definitions/…` refs resolve there.
    const schema = strictCopy({ ...definition, definitions: closure });
    const file = schemaFileName(gvk.kind, gvk.group, gvk.version);
    writeFileSync(path.join(outDir, file), JSON.stringify(schema));
    written.push(file);
  }
  return written;
}

function collectReferences(node: unknown, definitions: Record<string, Schema>, into: Record<string, Schema>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectReferences(item, definitions, into);
    return;
  }
  if (!node || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string") {
      const name = value.replace(/^#\/definitions\//, "");
      if (!(name in into)) {
        const target = definitions[name];
        if (!target) throw new Error(`swagger.json: ${value} names no definition`);
        into[name] = target;
        collectReferences(target, definitions, into);
      }
    } else {
      collectReferences(value, definitions, into);
    }
  }
}

/**
 * The schema with Kubernetes' encodings made JSON-schema: an int-or-string or a quantity takes
 * a number or a string, and an object with named properties takes no other (unless the API
 * keeps unknown fields there).
 */
function strictCopy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictCopy);
  if (!node || typeof node !== "object") return node;
  const source = node as Schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === "description") continue;
    copy[key] = key === "properties" ? mapValues(value as Record<string, unknown>, strictCopy) : strictCopy(value);
  }
  if (source.format === "int-or-string" || source["x-kubernetes-int-or-string"] === true) {
    delete copy.type;
    delete copy.format;
    delete copy.anyOf;
    copy.oneOf = [{ type: "string" }, { type: "integer" }];
  }
  if (
    copy.properties &&
    copy.additionalProperties === undefined &&
    source["x-kubernetes-preserve-unknown-fields"] !== true
  ) {
    copy.additionalProperties = false;
  }
  return copy;
}

function mapValues(object: Record<string, unknown>, fn: (value: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, fn(value)]));
}

/**
 * Quantities are strings in the OpenAPI document, but manifests write `cpu: 1` as often as
 * `cpu: "1"`, and the API server takes both.
 */
function withQuantities(definitions: Record<string, Schema>): Record<string, Schema> {
  const quantity = "io.k8s.apimachinery.pkg.api.resource.Quantity";
  if (!definitions[quantity]) return definitions;
  return { ...definitions, [quantity]: { oneOf: [{ type: "string" }, { type: "number" }] } };
}

function writeCrdSchemas(moduleDir: string, outDir: string): string[] {
  const written: string[] = [];
  for (const file of KEDA_CRDS) {
    const text = readFileSync(path.join(moduleDir, "config/crd/bases", file), "utf8");
    for (const doc of parseAllDocuments(text)) {
      const crd = doc.toJS() as {
        spec: {
          group: string;
          names: { kind: string };
          versions: { name: string; schema?: { openAPIV3Schema?: Schema } }[];
        };
      } | null;
      if (!crd?.spec) continue;
      for (const version of crd.spec.versions) {
        const schema = version.schema?.openAPIV3Schema;
        if (!schema) throw new Error(`${file}: version ${version.name} has no openAPIV3Schema`);
        const out = schemaFileName(crd.spec.names.kind, crd.spec.group, version.name);
        writeFileSync(path.join(outDir, out), JSON.stringify(strictCopy(schema)));
        written.push(out);
      }
    }
  }
  return written;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = ensureSchemas(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  console.log(`schemas in ${dir}`);
}
