import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The package as users get it: `npm pack` in apps/cli, installed with npm into an empty prefix
// outside the repository, run from a directory that knows nothing of the monorepo.
const CLI_DIR = fileURLToPath(new URL("..", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../../../packages/core/src/importers/fixtures/", import.meta.url));

function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(file, args, { cwd, env, timeout: 240_000, maxBuffer: 20_000_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== "number") reject(err);
      else resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
    });
  });
}

describe("the packed CLI", () => {
  it("installs from its tarball with npm alone and parses a tool's output", { timeout: 300_000 }, async () => {
    const packDir = mkdtempSync(path.join(tmpdir(), "bb-pack-"));
    const prefix = mkdtempSync(path.join(tmpdir(), "bb-prefix-"));
    const elsewhere = mkdtempSync(path.join(tmpdir(), "bb-user-"));
    // npm runs the package's prepack script (the esbuild bundle) before packing.
    const pack = await run("npm", ["pack", "--json", "--pack-destination", packDir], CLI_DIR);
    expect(pack.code, pack.stderr).toBe(0);
    const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    expect(packed!.filename).toMatch(/^benchboard-cli-\d+\.\d+\.\d+\.tgz$/);
    expect(packed!.files.map((f) => f.path).sort()).toEqual([
      "README.md",
      "dist/benchboard.js",
      "dist/engine-thread-entry.js",
      "package.json",
    ]);
    expect(readdirSync(packDir)).toEqual([packed!.filename]);

    // Nothing the registry would have to supply: no dependencies at all, no workspace specs.
    const extracted = mkdtempSync(path.join(tmpdir(), "bb-tar-"));
    expect((await run("tar", ["-xzf", path.join(packDir, packed!.filename), "-C", extracted], elsewhere)).code).toBe(0);
    const manifestText = readFileSync(path.join(extracted, "package", "package.json"), "utf8");
    const manifest = JSON.parse(manifestText) as Record<string, unknown>;
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies ?? {}).toEqual({});
    expect(manifestText).not.toContain("workspace:");
    expect(manifest.bin).toEqual({ benchboard: "./dist/benchboard.js" });
    expect(manifest.engines).toEqual({ node: ">=20" });

    // --offline: the install must not need the registry.
    const install = await run(
      "npm",
      [
        "install",
        "-g",
        "--offline",
        "--no-audit",
        "--no-fund",
        "--prefix",
        prefix,
        path.join(packDir, packed!.filename),
      ],
      elsewhere,
    );
    expect(install.code, install.stderr).toBe(0);
    const bin = path.join(prefix, "bin", "benchboard");
    // Only the CLI's own directory lands in the prefix: no node_modules beside it.
    expect(readdirSync(path.join(prefix, "lib", "node_modules"))).toEqual(["@benchboard"]);
    expect(readdirSync(path.join(prefix, "lib", "node_modules", "@benchboard", "cli")).sort()).toEqual([
      "README.md",
      "dist",
      "package.json",
    ]);

    // Run through the installed bin link, with a PATH holding only the prefix and node.
    const env = { PATH: `${path.join(prefix, "bin")}:${path.dirname(process.execPath)}`, HOME: elsewhere };
    const version = await run(bin, ["--version"], elsewhere, env);
    expect(version).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: "" });

    const parsed = await run(bin, ["parse", path.join(FIXTURES, "vegeta", "mixed.json"), "--compact"], elsewhere, env);
    expect(parsed.code, parsed.stderr).toBe(0);
    const runJson = JSON.parse(parsed.stdout) as {
      tool: { name: string };
      result: { metrics: Record<string, number> };
    };
    expect(runJson.tool.name).toBe("vegeta");
    expect(runJson.result.metrics.requests).toBeGreaterThan(0);

    writeFileSync(path.join(elsewhere, "notes.txt"), "hello\n");
    const bad = await run(bin, ["parse", "notes.txt", "--format", "wrk"], elsewhere, env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^benchboard: notes\.txt: /);
  });
});
