"use client";

import { type ReactNode, useState } from "react";
import { errorMessage } from "~/trpc/errors";
import { ConfirmDialog } from "../confirm-dialog";

/** What the kit needs of a delete mutation (a tRPC `useMutation` result). */
interface DeleteMutation {
  mutate: (input: { id: string }, options?: { onSuccess?: () => void }) => void;
  reset: () => void;
  isPending: boolean;
  error: unknown;
}

/**
 * Asking before a row is deleted: `ask(row)` opens the dialog (with the last failure cleared),
 * and it closes once the delete succeeded. Render `dialog` anywhere in the list.
 */
export function useDeleteDialog<T extends { id: string; name: string }>({
  mutation,
  kind,
  confirmLabel,
  consequence,
}: {
  mutation: DeleteMutation;
  /** What a row is, in a sentence ("instance config"). */
  kind: string;
  confirmLabel: string;
  /** What happens to what the row had (its runs, its secrets). */
  consequence: (row: T) => ReactNode;
}): { ask: (row: T) => void; dialog: ReactNode } {
  const [doomed, setDoomed] = useState<T | null>(null);
  return {
    ask: (row) => {
      mutation.reset();
      setDoomed(row);
    },
    dialog: (
      <ConfirmDialog
        open={doomed !== null}
        title={`Delete ${kind} "${doomed?.name ?? ""}"?`}
        confirmLabel={confirmLabel}
        pending={mutation.isPending}
        error={mutation.error ? errorMessage(mutation.error) : null}
        onCancel={() => setDoomed(null)}
        onConfirm={() => doomed && mutation.mutate({ id: doomed.id }, { onSuccess: () => setDoomed(null) })}
      >
        {doomed && consequence(doomed)}
      </ConfirmDialog>
    ),
  };
}
