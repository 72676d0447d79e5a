import { ReadingBadge, StatusBadge } from "@benchboard/ui";

/** How a listed run's figures read, once it has results. */
export interface ListedRunResult {
  reading: "valid" | "saturated" | "invalid" | null | undefined;
  saturationReasons?: readonly string[];
  saturation?: string | null;
}

/** A listed run's status and how its figures read (valid, saturated at what rate, or invalid). */
export function RunStatus({ status, result }: { status: string; result: ListedRunResult | null | undefined }) {
  return (
    <>
      <StatusBadge status={status} />
      <ReadingBadge
        reading={result?.reading}
        saturationReasons={result?.saturationReasons}
        headline={result?.saturation}
      />
    </>
  );
}
