import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The CLI's modules form no import cycle — static, type-only or dynamic — so each loads on its
// own (the agent's engines load only when `benchboard agent` runs) and none sees another half made.

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [full] : [];
  });
}

function resolve(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, path.join(base, "index.ts")]) {
    const inside = candidate.startsWith(`${SRC}${path.sep}`) && candidate.endsWith(".ts");
    if (inside && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every cycle found by a depth-first walk, each as the files around it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe("CLI imports", () => {
  it("have no cycle", () => {
    const graph = new Map<string, string[]>();
    for (const file of sources(SRC)) {
      const text = readFileSync(file, "utf8");
      const deps = [...text.matchAll(IMPORT)].map((m) => resolve(file, m[1]!)).filter((d): d is string => d !== null);
      graph.set(file, deps);
    }
    expect(graph.size).toBeGreaterThan(10);
    expect(graph.get(path.join(SRC, "commands/agent.ts"))).toContain(path.join(SRC, "agent/agent-loop.ts"));
    const found = cycles(graph).map((c) => c.map((f) => path.relative(SRC, f)).join(" → "));
    expect(found).toEqual([]);
  });
});
