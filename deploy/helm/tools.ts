import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// helm, kubeconform and the schemas' source modules, all pinned in tools.env and taken from the
// Go module proxy: the chart's test needs no cluster and no download site.

export const HELM_DIR = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HELM_DIR, "../..");
export const CHART_DIR = path.join(HELM_DIR, "benchboard");
const STATE_DIR = path.resolve(ROOT, process.env.BENCHBOARD_STATE_DIR ?? ".data");
export const TOOLS_DIR = path.join(STATE_DIR, "tools");

export interface ToolVersions {
  HELM_VERSION: string;
  KUBECONFORM_VERSION: string;
  KUBERNETES_VERSION: string;
  KEDA_VERSION: string;
}

export function toolVersions(): ToolVersions {
  const entries = readFileSync(path.join(HELM_DIR, "tools.env"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => line.split("=", 2) as [string, string]);
  const found = Object.fromEntries(entries) as Partial<ToolVersions>;
  for (const key of ["HELM_VERSION", "KUBECONFORM_VERSION", "KUBERNETES_VERSION", "KEDA_VERSION"] as const) {
    if (!found[key]) throw new Error(`deploy/helm/tools.env: ${key} is missing`);
  }
  return found as ToolVersions;
}

const PACKAGES = {
  helm: (v: ToolVersions) => `helm.sh/helm/v3/cmd/helm@${v.HELM_VERSION}`,
  kubeconform: (v: ToolVersions) => `github.com/yannh/kubeconform/cmd/kubeconform@${v.KUBECONFORM_VERSION}`,
} as const;

/**
 * The path of `name` in the tools directory, built there with `go install` when missing (a few
 * minutes on a new machine; scripts/test.sh builds them before the suite). A binary of another
 * version is replaced: the version is part of what the test pins.
 */
export function ensureTool(name: keyof typeof PACKAGES): string {
  const versions = toolVersions();
  const wanted = name === "helm" ? versions.HELM_VERSION : versions.KUBECONFORM_VERSION;
  const bin = path.join(TOOLS_DIR, name);
  if (existsSync(bin) && installedVersion(bin) === wanted) return bin;
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
  } catch {
    throw new Error(`Go is required to build ${name} ${wanted} for the chart's test (or put it at ${bin})`);
  }
  mkdirSync(TOOLS_DIR, { recursive: true });
  execFileSync("go", ["install", PACKAGES[name](versions)], {
    env: { ...process.env, GOBIN: TOOLS_DIR },
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 900_000,
  });
  return bin;
}

/** The module version a Go binary was built from (`go version -m`), or null. */
function installedVersion(bin: string): string | null {
  try {
    const info = execFileSync("go", ["version", "-m", bin], { encoding: "utf8" });
    return /^\s+mod\s+\S+\s+(\S+)/m.exec(info)?.[1] ?? null;
  } catch {
    return null;
  }
}

/** Where the Go module cache holds `module@version`, downloading it through the proxy if needed. */
export function goModuleDir(module: string, version: string): string {
  mkdirSync(TOOLS_DIR, { recursive: true });
  const out = execFileSync("go", ["mod", "download", "-json", `${module}@${version}`], {
    encoding: "utf8",
    // Outside any Go module: only the named module is fetched.
    cwd: TOOLS_DIR,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 900_000,
  });
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (info.Error || !info.Dir) throw new Error(`go mod download ${module}@${version}: ${info.Error ?? "no directory"}`);
  return info.Dir;
}
