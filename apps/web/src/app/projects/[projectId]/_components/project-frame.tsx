"use client";

import { Button, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { type ReactNode, useState } from "react";
import { ConfirmDialog } from "~/app/_components/confirm-dialog";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";
import { ProjectSlug } from "./project-slug";

/** Project header (name, rename, delete) and the tabs of its areas. */
export function ProjectFrame({ projectId, children }: { projectId: string; children: ReactNode }) {
  const trpc = useTRPC();
  const project = useQuery(trpc.project.byId.queryOptions({ id: projectId }));
  const pathname = usePathname();
  const base = `/projects/${projectId}`;
  const tabs = [
    { href: base, label: "Overview", exact: true },
    { href: `${base}/targets`, label: "Targets", count: project.data?._count.targets },
    { href: `${base}/configs`, label: "Instance configs", count: project.data?._count.instanceConfigs },
    { href: `${base}/scenarios`, label: "Scenarios", count: project.data?._count.scenarios },
    { href: `${base}/launch`, label: "Launch" },
  ];

  if (project.isError) {
    return (
      <ErrorState
        title="Project not available"
        message={errorMessage(project.error)}
        onRetry={() => project.refetch()}
      />
    );
  }
  return (
    <>
      <ProjectHeading projectId={projectId} />
      <nav aria-label="Project" className="mb-6 flex flex-wrap gap-1 border-b border-slate-200">
        {tabs.map((tab) => {
          const active = tab.exact ? pathname === tab.href : pathname.startsWith(tab.href);
          return (
            <Link
              key={tab.href}
              href={tab.href}
              aria-current={active ? "page" : undefined}
              className={`-mb-px border-b-2 px-3 py-2 text-sm font-medium ${
                active ? "border-sky-600 text-sky-800" : "border-transparent text-slate-600 hover:text-slate-900"
              }`}
            >
              {tab.label}
              {tab.count !== undefined && (
                <span className="ml-1.5 rounded-full bg-slate-100 px-1.5 text-xs text-slate-600">{tab.count}</span>
              )}
            </Link>
          );
        })}
        <Link
          href={`/runs?projectId=${projectId}`}
          className="-mb-px border-b-2 border-transparent px-3 py-2 text-sm font-medium text-slate-600 hover:text-slate-900"
        >
          Runs
          {project.data ? (
            <span className="ml-1.5 rounded-full bg-slate-100 px-1.5 text-xs">{project.data._count.runs}</span>
          ) : null}
        </Link>
      </nav>
      {children}
    </>
  );
}

function ProjectHeading({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const project = useQuery(trpc.project.byId.queryOptions({ id: projectId }));
  const canEdit = useCanEdit();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [deleting, setDeleting] = useState(false);
  const [confirmName, setConfirmName] = useState("");
  const update = useMutation(
    trpc.project.update.mutationOptions({
      onSuccess: () => {
        setEditing(false);
        return queryClient.invalidateQueries({ queryKey: trpc.project.pathKey() });
      },
    }),
  );
  const remove = useMutation(
    trpc.project.delete.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.project.pathKey() });
        router.push("/");
      },
    }),
  );
  const errors = fieldErrors(update.error);

  if (!project.data) {
    return (
      <div className="mb-4">
        <Skeleton className="h-7 w-56" label="Loading project" />
      </div>
    );
  }
  if (editing) {
    return (
      <form
        aria-label="Edit project"
        className="mb-4 max-w-xl space-y-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
        onSubmit={(e) => {
          e.preventDefault();
          update.mutate({ id: projectId, name, description });
        }}
      >
        <Field label="Project name" htmlFor="project-edit-name" error={errors.name}>
          <input
            id="project-edit-name"
            className={inputClass}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={!!errors.name}
          />
        </Field>
        <Field label="Description" htmlFor="project-edit-description" error={errors.description}>
          <textarea
            id="project-edit-description"
            className={inputClass}
            rows={2}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </Field>
        <div className="flex gap-2">
          <Button type="submit" disabled={update.isPending}>
            {update.isPending ? "Saving…" : "Save project"}
          </Button>
          <Button variant="secondary" onClick={() => setEditing(false)}>
            Cancel
          </Button>
        </div>
      </form>
    );
  }
  return (
    <div className="mb-4 flex items-start justify-between gap-4">
      <div>
        <div className="text-xs font-medium uppercase tracking-wide text-slate-500">
          <Link href="/" className="hover:underline">
            Projects
          </Link>
        </div>
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{project.data.name}</h1>
        {project.data.description && <p className="mt-1 text-sm text-slate-600">{project.data.description}</p>}
        <ProjectSlug slug={project.data.slug} />
      </div>
      {canEdit && (
        <div className="flex gap-2">
          <Button
            variant="secondary"
            onClick={() => {
              setName(project.data.name);
              setDescription(project.data.description);
              update.reset();
              setEditing(true);
            }}
          >
            Edit project
          </Button>
          <Button
            variant="secondary"
            onClick={() => {
              setConfirmName("");
              remove.reset();
              setDeleting(true);
            }}
          >
            Delete project
          </Button>
        </div>
      )}
      <ConfirmDialog
        open={deleting}
        title={`Delete project "${project.data.name}"?`}
        confirmLabel="Delete project"
        pending={remove.isPending}
        confirmDisabled={confirmName.trim() !== project.data.name}
        error={remove.error ? errorMessage(remove.error) : null}
        onCancel={() => setDeleting(false)}
        onConfirm={() => remove.mutate({ id: projectId, confirmName })}
      >
        <p>
          This deletes its {project.data._count.targets} targets, {project.data._count.instanceConfigs} instance
          configs, {project.data._count.scenarios} scenarios and{" "}
          <strong className="text-slate-900">{project.data._count.runs} runs with their results</strong>. It cannot be
          undone.
        </p>
        <Field label="Type the project's name to confirm" htmlFor="project-delete-confirm">
          <input
            id="project-delete-confirm"
            className={inputClass}
            value={confirmName}
            onChange={(e) => setConfirmName(e.target.value)}
          />
        </Field>
      </ConfirmDialog>
    </div>
  );
}
