import type { TPublishedFigure } from "@benchboard/core";
import type { Fig } from "./figures";

/** A published document: its title and, where it has one, its public address. */
export interface SourceDocument {
  title: string;
  url?: string;
  /** The date the document gives for itself (YYYY-MM-DD); left out when it states none. */
  date?: string;
}

/** Where a figure was printed: the document and the table (or section) in it. */
export interface Citation extends SourceDocument {
  table: string;
}

export type ProjectKey = "gateway" | "examples" | "chat";

export interface SeedProject {
  key: ProjectKey;
  slug: string;
  name: string;
  description: string;
  /** Targets the document states, as thresholds; `why` cites them. */
  thresholds: { metric: string; op: "<" | "<=" | ">" | ">=" | "=="; value: number }[];
  thresholdsCite?: Citation;
}

export interface SeedConfig {
  name: string;
  instanceType?: string;
  vcpu?: number;
  memoryMb?: number;
  cpuLimit?: number;
  replicas: number;
  knobs: Record<string, string | number | boolean>;
}

export interface SeedScenario {
  name: string;
  engine: string;
  /** As much of the load as the document describes; imported runs are never relaunched. */
  spec: Record<string, unknown>;
  /** Stages summed into the gateway overhead. */
  overheadStages?: string[];
}

export interface SeedRun {
  /** Stable key, e.g. `chat#8`; also the run number within its project. */
  key: string;
  project: ProjectKey;
  number: number;
  /** The document's name for the run, e.g. "Run 8" or "light @ 0.05 vCPU". */
  label: string;
  cite: Citation;
  scenario: SeedScenario;
  config: SeedConfig;
  /** Printed measurements, stored as the run's metrics. */
  metrics: Record<string, Fig>;
  /** Printed server-timing stages (mean), stored as the stage breakdown and as `stage.<name>`. */
  stages?: Record<string, Fig>;
  /** Figures the document derived for this run (throughput, overhead, …): checked, never stored. */
  printed?: Record<string, Fig>;
  excludedReason?: string;
  notes: string;
  tags: string[];
}

export interface SeedTable {
  key: string;
  kind: "comparison" | "sweep";
  project: ProjectKey;
  title: string;
  cite: Citation;
  note?: string;
  /** Run keys in the document's order. */
  runs: string[];
  /** Comparisons: the run the deltas are taken against. */
  baseline?: string;
  /** Sweeps: the varied parameter and the charted metric; `owns` are the runs launched by it. */
  sweep?: { parameter: string; metric: string; owns: string[] };
  /** Figures naming runs by key. */
  figures: TPublishedFigure[];
}
