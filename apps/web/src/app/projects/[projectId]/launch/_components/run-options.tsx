"use client";

import { Field, inputClass } from "@benchboard/ui";
import { LocationField } from "~/app/_components/location-field";

/** Where and how often the launch runs, and what it is labelled with. */
export function RunOptions({
  errors,
  tagError,
  shards,
  setShards,
  shardsHint,
  location,
  setLocation,
  repetitions,
  setRepetitions,
  tags,
  setTags,
  notes,
  setNotes,
}: {
  errors: Record<string, string>;
  tagError: string | undefined;
  shards: string;
  setShards: (v: string) => void;
  shardsHint: string | undefined;
  location: string;
  setLocation: (v: string) => void;
  repetitions: string;
  setRepetitions: (v: string) => void;
  tags: string;
  setTags: (v: string) => void;
  notes: string;
  setNotes: (v: string) => void;
}) {
  return (
    <>
      <Field label="Shards" htmlFor="launch-shards" error={errors.shards} hint={shardsHint}>
        <input
          id="launch-shards"
          inputMode="numeric"
          className={inputClass}
          value={shards}
          onChange={(e) => setShards(e.target.value)}
          aria-invalid={!!errors.shards}
        />
      </Field>
      <LocationField
        id="launch-worker-label"
        value={location}
        onChange={setLocation}
        error={errors.workerLabel ?? errors.agentLabel}
      />
      <Field
        label="Repetitions"
        htmlFor="launch-repetitions"
        error={errors.repetitions}
        hint="Runs back to back, to see the noise between runs"
      >
        <input
          id="launch-repetitions"
          inputMode="numeric"
          className={inputClass}
          value={repetitions}
          onChange={(e) => setRepetitions(e.target.value)}
          aria-invalid={!!errors.repetitions}
        />
      </Field>
      <Field label="Tags" htmlFor="launch-tags" error={tagError} hint="Comma separated, e.g. baseline, pool-10k">
        <input
          id="launch-tags"
          className={inputClass}
          value={tags}
          onChange={(e) => setTags(e.target.value)}
          aria-invalid={!!tagError}
        />
      </Field>
      <div className="md:col-span-2">
        <Field label="Notes (optional)" htmlFor="launch-notes" error={errors.notes}>
          <textarea
            id="launch-notes"
            rows={2}
            className={inputClass}
            value={notes}
            onChange={(e) => setNotes(e.target.value)}
          />
        </Field>
      </div>
    </>
  );
}
