"use client";

import { Button, Field, inputClass } from "@benchboard/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

/** Notes, tags and "exclude from sweeps and trends" (with its reason) of a run. */
export function RunMetaEditor({
  runId,
  notes,
  tags,
  excluded,
  excludedReason,
  canEdit,
}: {
  runId: string;
  notes: string;
  tags: string[];
  excluded: boolean;
  excludedReason: string | null;
  canEdit: boolean;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [draft, setDraft] = useState({ notes, tags: tags.join(", "), excluded, reason: excludedReason ?? "" });
  const save = useMutation(
    trpc.run.update.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.run.pathKey() }),
    }),
  );
  const errors = fieldErrors(save.error);
  const dirty =
    draft.notes !== notes ||
    draft.tags !== tags.join(", ") ||
    draft.excluded !== excluded ||
    (draft.excluded && draft.reason !== (excludedReason ?? ""));
  return (
    <form
      className="space-y-3"
      aria-label="Notes and tags"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({
          id: runId,
          notes: draft.notes,
          tags: draft.tags
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean),
          excluded: draft.excluded,
          excludedReason: draft.excluded ? draft.reason.trim() : null,
        });
      }}
    >
      <Field label="Notes" htmlFor="run-notes" error={errors.notes}>
        <textarea
          id="run-notes"
          rows={4}
          className={inputClass}
          value={draft.notes}
          disabled={!canEdit}
          onChange={(e) => setDraft({ ...draft, notes: e.target.value })}
        />
      </Field>
      <Field label="Tags" htmlFor="run-tags" hint="Comma-separated" error={errors.tags}>
        <input
          id="run-tags"
          className={inputClass}
          value={draft.tags}
          disabled={!canEdit}
          onChange={(e) => setDraft({ ...draft, tags: e.target.value })}
        />
      </Field>
      <label className="flex items-center gap-2 text-sm text-slate-700">
        <input
          type="checkbox"
          checked={draft.excluded}
          disabled={!canEdit}
          onChange={(e) => setDraft({ ...draft, excluded: e.target.checked })}
        />
        Exclude from sweeps and trends
      </label>
      {draft.excluded && (
        <Field label="Why is it excluded?" htmlFor="run-excluded-reason" error={errors.excludedReason}>
          <input
            id="run-excluded-reason"
            className={inputClass}
            value={draft.reason}
            disabled={!canEdit}
            placeholder="e.g. stale broker queues from earlier runs"
            onChange={(e) => setDraft({ ...draft, reason: e.target.value })}
          />
        </Field>
      )}
      {canEdit && (
        <div className="flex items-center gap-3">
          <Button type="submit" disabled={!dirty || save.isPending}>
            {save.isPending ? "Saving…" : "Save"}
          </Button>
          {save.isSuccess && !dirty && <span className="text-xs text-emerald-700">Saved</span>}
          {save.isError && Object.keys(errors).length === 0 && (
            <span className="text-xs text-rose-700">{errorMessage(save.error)}</span>
          )}
        </div>
      )}
    </form>
  );
}
