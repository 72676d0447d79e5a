"use client";

import type { RouterOutputs } from "@benchboard/api";
import { formatSweepValue } from "@benchboard/core";
import { Button, Card, ProgressBar } from "@benchboard/ui";
import { useState } from "react";
import { ConfirmDialog } from "~/app/_components/confirm-dialog";

type View = RouterOutputs["sweep"]["byId"];

/** How far a running sweep got, which value is being measured, and a way to stop it. */
export function SweepProgress({
  rows,
  canCancel,
  canceling,
  error,
  onCancel,
}: {
  rows: View["rows"];
  canCancel: boolean;
  canceling: boolean;
  error: string | null;
  onCancel: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const finished = rows.filter((r) => r.status !== "queued" && r.status !== "running").length;
  const current = rows.find((r) => r.status === "running");
  // The value being measured counts by how far it has got.
  const done = finished + (current?.fraction ?? 0);
  return (
    <Card title="Progress">
      <div className="space-y-3">
        <ProgressBar
          label={`${finished} of ${rows.length} runs finished`}
          value={rows.length ? done / rows.length : null}
        />
        <div className="flex items-center justify-between gap-4 text-sm text-slate-600">
          <span>
            {current ? (
              <>
                Measuring <span className="font-mono text-xs">{formatSweepValue(current.value)}</span>
                {current.fraction !== null && ` (${Math.round(current.fraction * 100)}% of this run)`}
              </>
            ) : (
              "Waiting for a worker…"
            )}
          </span>
          {canCancel && (
            <Button variant="danger" disabled={canceling} onClick={() => setConfirming(true)}>
              {canceling ? "Canceling…" : "Cancel sweep"}
            </Button>
          )}
        </div>
        {error && !confirming && <p className="text-sm text-rose-700">{error}</p>}
      </div>
      <ConfirmDialog
        open={confirming}
        title="Cancel this sweep?"
        confirmLabel="Cancel sweep"
        dismissLabel="Keep running"
        pending={canceling}
        error={error}
        onConfirm={() => {
          onCancel();
          setConfirming(false);
        }}
        onCancel={() => setConfirming(false)}
      >
        <p>
          The value being measured stops within a second and keeps what it measured; the values not yet run never start.
          Every run of the sweep ends canceled.
        </p>
      </ConfirmDialog>
    </Card>
  );
}
