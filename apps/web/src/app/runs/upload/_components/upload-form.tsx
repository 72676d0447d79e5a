"use client";

import { Button, Card, Field } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { FormAlert, SelectField, SubmitForm, TextField, useDirtyGuard } from "~/app/_components/form-kit";
import { ListStates } from "~/app/_components/list-kit";
import { ReadOnlyNotice } from "~/app/_components/read-only-notice";
import { useRole } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";
import { UPLOAD_CHOICE_ORDER, UPLOAD_CHOICES, type UploadChoice } from "./upload-formats";

/** The web app's tRPC route refuses bodies over 1 MB; bigger files go through the CLI or REST. */
const MAX_BROWSER_UPLOAD_BYTES = 900_000;

export function UploadForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const projects = useQuery(trpc.project.list.queryOptions());
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<UploadChoice>("auto");
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
  // A chosen file not yet uploaded: leaving asks first.
  useDirtyGuard(file !== null && !upload.isSuccess);

  if (role === "viewer") {
    return <ReadOnlyNotice>You are a viewer in this organization: members and owners upload results.</ReadOnlyNotice>;
  }
  if (!projects.data?.length) {
    return (
      <ListStates
        query={projects}
        count={projects.data?.length}
        loadingLabel="Loading projects"
        loadingClassName="h-72"
        emptyTitle="No projects yet"
        empty={
          <>
            <Link href="/" className="text-sky-700 hover:underline">
              Create a project
            </Link>{" "}
            to upload results into.
          </>
        }
      >
        {null}
      </ListStates>
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
      <SubmitForm className="grid max-w-2xl gap-4" label="Upload results" onSubmit={() => void submit()}>
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
          <SelectField
            id="upload-format"
            label="Format"
            value={format}
            onValue={(v) => setFormat(v as UploadChoice)}
            error={errors.format}
            hint={UPLOAD_CHOICES[format].hint}
            options={UPLOAD_CHOICE_ORDER.map((value) => ({ value, label: UPLOAD_CHOICES[value].label }))}
          />
          <SelectField
            id="upload-project"
            label="Project"
            value={project}
            onValue={setProjectId}
            error={errors.project}
            options={projects.data.map((p) => ({ value: p.id, label: p.name }))}
          />
          <TextField
            id="upload-scenario"
            label="Scenario name"
            hint="Optional. A scenario of this name in the project adds its thresholds."
            value={scenario}
            onValue={setScenario}
            error={errors.scenario}
            placeholder="e.g. checkout 500 rps"
          />
          {format === "bifrost" || format === "auto" ? (
            <TextField
              id="upload-provider"
              label="Provider"
              hint="bifrost-benchmarking files hold one run per provider."
              value={provider}
              onValue={setProvider}
              error={errors.provider}
              placeholder="e.g. bifrost"
            />
          ) : null}
          <TextField
            id="upload-branch"
            label="Branch"
            value={branch}
            onValue={setBranch}
            error={errors.branch}
            placeholder="optional"
          />
          <TextField
            id="upload-tags"
            label="Tags"
            hint="Comma-separated."
            value={tags}
            onValue={setTags}
            error={errors.tags}
            placeholder="optional"
          />
        </div>
        <FormAlert>{formLevelError}</FormAlert>
        <div>
          <Button type="submit" disabled={upload.isPending}>
            {upload.isPending ? "Uploading…" : "Upload"}
          </Button>
        </div>
      </SubmitForm>
    </Card>
  );
}
