"use client";

import { Button, Card, EmptyState, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { fieldErrors } from "~/trpc/errors";

export function ProjectsOverview() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const projects = useQuery(trpc.project.list.queryOptions());
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

  return (
    <div className="grid gap-6 lg:grid-cols-3">
      <div className="lg:col-span-2">
        {projects.isPending ? (
          <div className="space-y-3">
            <Skeleton className="h-16" label="Loading projects" />
            <Skeleton className="h-16" />
          </div>
        ) : projects.isError ? (
          <ErrorState message={projects.error.message} onRetry={() => projects.refetch()} />
        ) : projects.data.length === 0 ? (
          <EmptyState title="No projects yet">Create one to register targets and launch runs.</EmptyState>
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
                    {p._count.targets} targets · {p._count.scenarios} scenarios · {p._count.runs} runs
                  </div>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </div>
      <Card title="New project">
        <form
          className="space-y-3"
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
    </div>
  );
}
