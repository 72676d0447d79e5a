"use client";

import { countOf } from "@benchboard/core";
import { Button, Card, EmptyState, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";
import { GettingStarted, gettingStartedSteps } from "./getting-started";
import { useRole } from "./use-can-edit";

export function ProjectsOverview() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const projects = useQuery(trpc.project.list.queryOptions());
  const role = useRole();
  const canEdit = role === "member" || role === "owner";
  const [name, setName] = useState("");
  const create = useMutation(
    trpc.project.create.mutationOptions({
      onSuccess: () => {
        setName("");
        return queryClient.invalidateQueries(trpc.project.list.queryFilter());
      },
    }),
  );
  const errors = fieldErrors(create.error);
  // The first visit's path: the project that is furthest along, or creating one.
  const furthest = projects.data?.length
    ? [...projects.data].sort((a, b) => b._count.runs - a._count.runs || b._count.scenarios - a._count.scenarios)[0]!
    : null;
  const steps = projects.data
    ? gettingStartedSteps(furthest ? { id: furthest.id, counts: furthest._count } : null)
    : [];

  return (
    <div className="grid gap-6 lg:grid-cols-3">
      <div className="space-y-6 lg:col-span-2">
        {canEdit && <GettingStarted steps={steps} />}
        {projects.isPending ? (
          <div className="space-y-3">
            <Skeleton className="h-16" label="Loading projects" />
            <Skeleton className="h-16" />
          </div>
        ) : projects.isError ? (
          <ErrorState message={errorMessage(projects.error)} onRetry={() => projects.refetch()} />
        ) : projects.data.length === 0 ? (
          <EmptyState title="No projects yet">
            {canEdit
              ? "Create one to register targets and launch runs."
              : "Members and owners of this organization create projects; you can read what they publish."}
          </EmptyState>
        ) : (
          <ul className="space-y-3" aria-label="Projects">
            {projects.data.map((p) => (
              <li key={p.id}>
                <Link
                  href={`/projects/${p.id}`}
                  className="block rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm hover:border-sky-300"
                >
                  <div className="font-medium text-slate-900">{p.name}</div>
                  <div className="mt-0.5 text-xs text-slate-500">
                    {countOf(p._count.targets, "target")} · {countOf(p._count.scenarios, "scenario")} ·{" "}
                    {countOf(p._count.runs, "run")}
                  </div>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </div>
      {canEdit ? (
        <Card title="New project">
          <form
            className="space-y-3"
            aria-label="New project"
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate({ name });
            }}
          >
            <Field label="Project name" htmlFor="project-name" error={errors.name}>
              <input
                id="project-name"
                className={inputClass}
                value={name}
                onChange={(e) => setName(e.target.value)}
                aria-invalid={!!errors.name}
                placeholder="LLM gateway"
              />
            </Field>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? "Creating…" : "Create project"}
            </Button>
          </form>
        </Card>
      ) : (
        role !== undefined && (
          <Card title="Read-only">
            <p className="text-sm text-slate-600">
              You are a viewer in this organization: you can open its projects, runs, comparisons and sweeps. Members
              and owners create and change them.
            </p>
          </Card>
        )
      )}
    </div>
  );
}
