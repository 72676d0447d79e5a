"use client";

import { Button, Card, EmptyState, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ReadOnlyNotice } from "~/app/_components/read-only-notice";
import { useRole } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

/** The web app's tRPC route refuses bodies over 1 MB; bigger files go through the CLI or REST. */
const MAX_BROWSER_UPLOAD_BYTES = 900_000;

const FORMATS = [
  { value: "auto", label: "Detect from the content" },
  { value: "native", label: "Benchboard run JSON" },
  { value: "k6", label: "k6 summary (JSON)" },
  { value: "wrk", label: "wrk / wrk2 output" },
  { value: "hey", label: "hey output" },
  { value: "ab", label: "ab (ApacheBench) output" },
  { value: "drill", label: "drill --stats output" },
  { value: "vegeta", label: "vegeta JSON report" },
  { value: "bifrost", label: "bifrost-benchmarking results.json" },
] as const;
type Format = (typeof FORMATS)[number]["value"];

export function UploadForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const projects = useQuery(trpc.project.list.queryOptions());
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<Format>("auto");
  const [projectId, setProjectId] = useState("");
  const [scenario, setScenario] = useState("");
  const [provider, setProvider] = useState("");
  const [branch, setBranch] = useState("");
  const [tags, setTags] = useState("");
  const [fileError, setFileError] = useState<string | null>(null);
  const upload = useMutation(
    trpc.upload.run.mutationOptions({
      onSuccess: async (run) => {
        await queryClient.invalidateQueries({ queryKey: trpc.run.pathKey() });
        router.push(`/runs/${run.id}`);
      },
    }),
  );

  const role = useRole();

  if (role === "viewer") {
    return <ReadOnlyNotice>You are a viewer in this organization: members and owners upload results.</ReadOnlyNotice>;
  }
  if (projects.isPending) return <Skeleton className="h-72" label="Loading projects" />;
  if (projects.isError)
    return <ErrorState message={errorMessage(projects.error)} onRetry={() => void projects.refetch()} />;
  if (projects.data.length === 0) {
    return (
      <EmptyState title="No projects yet">
        <Link href="/" className="text-sky-700 hover:underline">
          Create a project
        </Link>{" "}
        to upload results into.
      </EmptyState>
    );
  }

  const serverErrors = fieldErrors(upload.error);
  // "tags.1" belongs to the tags field.
  const errorAt = (name: string) =>
    serverErrors[name] ?? Object.entries(serverErrors).find(([path]) => path.startsWith(`${name}.`))?.[1];
  const shown = ["content", "format", "project", "scenario", "provider", "branch", "tags"];
  const errors = Object.fromEntries(shown.map((name) => [name, errorAt(name)]));
  const project = projectId || projects.data[0]!.id;
  const formLevelError = upload.isError && !shown.some((name) => errors[name]) ? errorMessage(upload.error) : null;

  async function submit() {
    setFileError(null);
    if (!file) return setFileError("choose a file to upload");
    if (file.size > MAX_BROWSER_UPLOAD_BYTES) {
      return setFileError(
        `this file is ${(file.size / 1e6).toFixed(1)} MB; the browser accepts up to 0.9 MB — upload bigger files with the benchboard CLI or the REST API (up to 10 MB)`,
      );
    }
    const content = await file.text();
    upload.mutate({
      project,
      format,
      content,
      scenario: scenario.trim() || undefined,
      provider: provider.trim() || undefined,
      branch: branch.trim() || undefined,
      tags: tags
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    });
  }

  return (
    <Card title="Result file">
      <form
        className="grid max-w-2xl gap-4"
        aria-label="Upload results"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Field
          label="File"
          htmlFor="upload-file"
          error={fileError ?? errors.content}
          hint="The tool's output as it printed it, or a JSON file."
        >
          <input
            id="upload-file"
            type="file"
            className="text-sm"
            aria-invalid={!!(fileError ?? errors.content)}
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              // The last error was about the previous file.
              upload.reset();
              setFileError(null);
            }}
          />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Format" htmlFor="upload-format" error={errors.format}>
            <select
              id="upload-format"
              className={inputClass}
              value={format}
              onChange={(e) => setFormat(e.target.value as Format)}
            >
              {FORMATS.map((f) => (
                <option key={f.value} value={f.value}>
                  {f.label}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Project" htmlFor="upload-project" error={errors.project}>
            <select
              id="upload-project"
              className={inputClass}
              value={project}
              onChange={(e) => setProjectId(e.target.value)}
            >
              {projects.data.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label="Scenario name"
            htmlFor="upload-scenario"
            error={errors.scenario}
            hint="Optional. A scenario of this name in the project adds its thresholds."
          >
            <input
              id="upload-scenario"
              className={inputClass}
              value={scenario}
              onChange={(e) => setScenario(e.target.value)}
              placeholder="e.g. checkout 500 rps"
            />
          </Field>
          {format === "bifrost" || format === "auto" ? (
            <Field
              label="Provider"
              htmlFor="upload-provider"
              error={errors.provider}
              hint="bifrost-benchmarking files hold one run per provider."
            >
              <input
                id="upload-provider"
                className={inputClass}
                value={provider}
                onChange={(e) => setProvider(e.target.value)}
                placeholder="e.g. bifrost"
              />
            </Field>
          ) : null}
          <Field label="Branch" htmlFor="upload-branch" error={errors.branch}>
            <input
              id="upload-branch"
              className={inputClass}
              value={branch}
              onChange={(e) => setBranch(e.target.value)}
              placeholder="optional"
            />
          </Field>
          <Field label="Tags" htmlFor="upload-tags" error={errors.tags} hint="Comma-separated.">
            <input
              id="upload-tags"
              className={inputClass}
              value={tags}
              onChange={(e) => setTags(e.target.value)}
              placeholder="optional"
            />
          </Field>
        </div>
        {formLevelError && (
          <p role="alert" className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-800">
            {formLevelError}
          </p>
        )}
        <div>
          <Button type="submit" disabled={upload.isPending}>
            {upload.isPending ? "Uploading…" : "Upload"}
          </Button>
        </div>
      </form>
    </Card>
  );
}
