import { readFile, writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { parseDocument, stringify } from "yaml";
import { z } from "zod";
import { ApiClient, addServerOptions, type ServerOptions, serverConfig } from "../client";
import { CliError } from "../exit-codes";
import type { CliIo } from "../io";

interface ApplyOptions extends ServerOptions {
  file: string;
  project?: string;
  dryRun?: boolean;
}

interface ExportOptions extends ServerOptions {
  project?: string;
  output?: string;
}

const ZChange = z.object({
  kind: z.string(),
  name: z.string(),
  action: z.enum(["create", "update", "unchanged"]),
  fields: z.array(z.string()).optional(),
});
const ZApplyResult = z.object({ dryRun: z.boolean(), changed: z.number(), changes: z.array(ZChange) });
const ZConfigDocument = z.record(z.string(), z.unknown());

const KIND_LABEL: Record<string, string> = {
  project: "project",
  thresholds: "thresholds",
  target: "target",
  instanceConfig: "instance config",
  scenario: "scenario",
  notificationEndpoint: "notification endpoint",
  notificationRule: "notification rule",
};

/** `${NAME}` in any string of the file is replaced by that environment variable (for secrets). */
export function expandEnv(value: unknown, env: CliIo["env"], path = ""): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const found = env[name];
      if (found === undefined)
        throw new CliError(`${path || "(document)"}: the environment variable ${name} is not set`);
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => expandEnv(v, env, `${path}[${i}]`));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandEnv(v, env, path ? `${path}.${k}` : k)]));
  }
  return value;
}

/** The configuration file as JSON, or a CliError naming the line. */
export function readConfigFile(text: string, file: string): Record<string, unknown> {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  const [error] = doc.errors;
  if (error) {
    const line = error.linePos?.[0]?.line;
    throw new CliError(`${file}${line ? `, line ${line}` : ""}: ${error.message.split("\n")[0]}`);
  }
  const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new CliError(
      `${file}: expected a mapping with version, targets, instanceConfigs, scenarios, thresholds, notifications`,
    );
  }
  return value as Record<string, unknown>;
}

/** Project ids are cuids; anything else names a project by its slug. */
const PROJECT_ID = /^c[a-z0-9]{20,31}$/;

function projectRef(options: { project?: string }, io: CliIo, fromFile?: unknown, file?: string): string {
  const given = options.project?.trim() || io.env.BENCHBOARD_PROJECT?.trim() || "";
  const named = typeof fromFile === "string" ? fromFile.trim() : "";
  // Both say which project, and differ: refuse rather than rewrite the wrong project. An id may
  // be the file's project under another name: the server, which knows, refuses a real mismatch.
  if (given && named && given !== named && !PROJECT_ID.test(given)) {
    const source = options.project?.trim() ? "--project" : "BENCHBOARD_PROJECT";
    throw new CliError(
      `${file ?? "the file"} names project "${named}" (project:) but ${source} is "${given}": make them agree, or drop one`,
    );
  }
  const project = given || named;
  if (!project) throw new CliError("--project is required (or set BENCHBOARD_PROJECT, or project: in the file)");
  return project;
}

export function registerConfig(program: Command, io: CliIo): void {
  addServerOptions(
    program
      .command("apply")
      .description(
        "create or update a project's targets, instance configs, scenarios, thresholds and notifications (endpoints by name, the project's rules) from a file; what the file does not name is left alone",
      )
      .requiredOption("-f, --file <file>", "the configuration file, e.g. benchboard.yml (YAML or JSON)")
      .option("--project <slug>", "the project's slug or id (env BENCHBOARD_PROJECT; default: project: in the file)")
      .option("--dry-run", "print what would change, change nothing"),
  ).action(async (options: ApplyOptions) => {
    let text: string;
    try {
      text = await readFile(options.file, "utf8");
    } catch (err) {
      throw new CliError(`cannot read ${options.file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
    }
    const doc = expandEnv(readConfigFile(text, options.file), io.env) as Record<string, unknown>;
    const project = projectRef(options, io, doc.project, options.file);
    const client = new ApiClient(serverConfig(options, io));
    const { body } = await client.request({
      method: "PUT",
      path: `/projects/${encodeURIComponent(project)}/config${options.dryRun ? "?dryRun=true" : ""}`,
      body: doc,
      // Applying the same document again changes nothing, so a retry is safe.
      retry: true,
      schema: ZApplyResult,
      what: options.dryRun ? "plan" : "apply",
    });
    const sign = { create: "+", update: "~", unchanged: "=" } as const;
    for (const change of body.changes) {
      const fields = change.fields?.length ? ` (${change.fields.join(", ")})` : "";
      const label = KIND_LABEL[change.kind] ?? change.kind;
      const what = change.kind === "thresholds" ? "project thresholds" : `${label} ${change.name}`;
      io.stdout(
        `${sign[change.action]} ${change.action === "unchanged" ? "unchanged" : change.action} ${what}${fields}\n`,
      );
    }
    const count = (action: string) => body.changes.filter((c) => c.action === action).length;
    const summary = `${count("create")} to create, ${count("update")} to update, ${count("unchanged")} unchanged`;
    io.stdout(
      body.dryRun
        ? `Plan for ${project}: ${summary} (dry run: nothing changed)\n`
        : `Applied to ${project}: ${summary}\n`,
    );
  });

  addServerOptions(
    program
      .command("export")
      .description(
        "write a project's targets, instance configs, scenarios, thresholds and notification rules (with the endpoints they use, without URLs or secrets) as a file for apply",
      )
      .option("--project <slug>", "the project's slug or id (env BENCHBOARD_PROJECT)")
      .option("-o, --output <file>", "write to this file instead of standard output"),
  ).action(async (options: ExportOptions) => {
    const project = projectRef(options, io);
    const client = new ApiClient(serverConfig(options, io));
    const { body } = await client.request({
      method: "GET",
      path: `/projects/${encodeURIComponent(project)}/config`,
      retry: true,
      schema: ZConfigDocument,
      what: "export",
    });
    const yaml = `# Benchboard configuration of project ${String(body.project)}: apply with\n#   benchboard apply -f <this file>\n# Secret header values are never exported: give them as value: \${ENV_VAR}.\n# Notification endpoints' URLs and secrets are never exported either: give them as url: \${ENV_VAR}\n# (an endpoint that exists keeps its stored URL when the file leaves it out).\n${stringify(body, { lineWidth: 0 })}`;
    if (options.output) {
      await writeFile(options.output, yaml);
      io.stderr(`Wrote ${options.output}\n`);
    } else {
      io.stdout(yaml);
    }
  });
}
