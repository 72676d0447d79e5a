import { Card } from "@benchboard/ui";
import { type PublishedCheckRow, PublishedFigures } from "@benchboard/ui/published-figures";
import type { ReactNode } from "react";

/** What a result view (compare, sweep) knows of a document that published figures for its runs. */
export interface PublishedView {
  reference: { source: string; url?: string; table: string; date?: string; note?: string };
  checks: readonly PublishedCheckRow[];
}

/** The "Published figures" card: the document's figures beside what Benchboard computed. */
export function PublishedFiguresCard({
  published,
  runLabel,
}: {
  published: PublishedView;
  runLabel: (runId: string) => ReactNode;
}) {
  const { reference } = published;
  return (
    <Card title="Published figures">
      <PublishedFigures
        source={reference.source}
        url={reference.url}
        table={reference.table}
        date={reference.date}
        note={reference.note}
        checks={published.checks}
        runLabel={runLabel}
      />
    </Card>
  );
}
