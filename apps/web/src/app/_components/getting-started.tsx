import { Card } from "@benchboard/ui";
import Link from "next/link";

export interface ProjectCounts {
  targets: number;
  instanceConfigs: number;
  scenarios: number;
  runs: number;
}

export interface GettingStartedStep {
  done: boolean;
  href: string;
  label: string;
}

/** The path from nothing to a first run; with no project yet, creating one comes first. */
export function gettingStartedSteps(
  project: { id: string; counts: ProjectCounts } | null,
  newProjectHref = "/#project-name",
): GettingStartedStep[] {
  const base = project ? `/projects/${project.id}` : null;
  const c = project?.counts;
  const at = (path: string) => (base ? `${base}${path}` : newProjectHref);
  return [
    { done: project !== null, href: newProjectHref, label: "Create a project (the product under test)" },
    { done: (c?.targets ?? 0) > 0, href: at("/targets/new"), label: "Register a target (the service to load)" },
    {
      done: (c?.instanceConfigs ?? 0) > 0,
      href: at("/configs/new"),
      label: "Describe where it runs (instance config, optional)",
    },
    { done: (c?.scenarios ?? 0) > 0, href: at("/scenarios/new"), label: "Define a scenario (the load)" },
    { done: (c?.runs ?? 0) > 0, href: at("/launch"), label: "Launch a run" },
  ];
}

/** The getting-started card: shown while a step is left, with the next steps as links. */
export function GettingStarted({
  steps,
  withProjectStep = true,
}: {
  steps: GettingStartedStep[];
  withProjectStep?: boolean;
}) {
  const shown = withProjectStep ? steps : steps.slice(1);
  if (shown.every((s) => s.done)) return null;
  return (
    <Card title="Getting started">
      <ol className="space-y-1.5 text-sm" aria-label="Getting started">
        {shown.map((s, i) => (
          <li key={s.label} className="flex items-center gap-2">
            <span
              aria-hidden
              className={`flex h-5 w-5 items-center justify-center rounded-full text-xs ${
                s.done ? "bg-emerald-100 text-emerald-800" : "bg-slate-100 text-slate-600"
              }`}
            >
              {s.done ? "✓" : i + 1}
            </span>
            {s.done ? (
              <span className="text-slate-500 line-through">{s.label}</span>
            ) : (
              <Link href={s.href} className="text-sky-700 hover:underline">
                {s.label}
              </Link>
            )}
          </li>
        ))}
      </ol>
    </Card>
  );
}
