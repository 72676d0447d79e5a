"use client";

import { Button, Field, inputClass } from "@benchboard/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

interface CloneDialogProps {
  projectId: string;
  source: { id: string; name: string } | null;
  onClose: () => void;
}

/**
 * Ask for the variant's name, clone, then open the variant to change what differs. Keyed by the
 * source so the suggested name is the first state of the field: a default filled in by an effect
 * after the first paint would overwrite what someone typed quickly.
 */
export function CloneDialog({ projectId, source, onClose }: CloneDialogProps) {
  if (!source) return null;
  return <CloneForm key={source.id} projectId={projectId} source={source} onClose={onClose} />;
}

function CloneForm({ projectId, source, onClose }: CloneDialogProps & { source: { id: string; name: string } }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const titleId = useId();
  const [name, setName] = useState(`${source.name} (variant)`);
  const clone = useMutation(
    trpc.instanceConfig.clone.mutationOptions({
      onSuccess: async (copy) => {
        await queryClient.invalidateQueries({ queryKey: trpc.instanceConfig.pathKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.project.pathKey() });
        onClose();
        router.push(`/projects/${projectId}/configs/${copy.id}`);
      },
    }),
  );
  const errors = fieldErrors(clone.error);
  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/40 p-4">
      <form
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        className="w-full max-w-md space-y-4 rounded-lg border border-slate-200 bg-white p-5 shadow-xl"
        onSubmit={(e) => {
          e.preventDefault();
          clone.mutate({ id: source.id, name });
        }}
      >
        <h2 id={titleId} className="text-base font-semibold text-slate-900">
          Clone "{source.name}"
        </h2>
        <p className="text-sm text-slate-600">
          The variant starts with the same size and knobs; change what differs. Runs keep the config they ran with.
        </p>
        <Field label="Variant name" htmlFor="clone-name" error={errors.name}>
          <input
            id="clone-name"
            className={inputClass}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={!!errors.name}
          />
        </Field>
        {clone.isError && !errors.name && (
          <p role="alert" className="text-sm text-rose-700">
            {errorMessage(clone.error)}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={clone.isPending}>
            {clone.isPending ? "Cloning…" : "Clone config"}
          </Button>
        </div>
      </form>
    </div>
  );
}
