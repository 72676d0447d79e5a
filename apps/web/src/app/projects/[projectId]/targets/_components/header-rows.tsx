"use client";

import { Button, Card } from "@benchboard/ui";
import { InlineError, nextRowKey, smallInputClass } from "~/app/_components/form-kit";
import type { HeaderRow } from "./target-form";

/**
 * The target's headers, sent with every request. A secret one's stored value is never shown: it
 * reads "(set)" until replaced.
 */
export function HeaderRows({
  headers,
  setHeaders,
  errors,
}: {
  headers: HeaderRow[];
  setHeaders: (update: (rows: HeaderRow[]) => HeaderRow[]) => void;
  errors: Record<string, string>;
}) {
  const patch = (k: number, p: Partial<HeaderRow>) =>
    setHeaders((rows) => rows.map((r) => (r.key === k ? { ...r, ...p } : r)));
  return (
    <Card
      title="Headers"
      actions={
        <Button
          variant="secondary"
          onClick={() =>
            setHeaders((rows) => [
              ...rows,
              { key: nextRowKey(), name: "", value: "", secret: false, storedAs: null, replacing: false },
            ])
          }
        >
          Add header
        </Button>
      }
    >
      {headers.length === 0 ? (
        <p className="text-sm text-slate-500">
          Sent with every request. Mark a header secret (e.g. an API key) to store its value encrypted; it is never
          shown again.
        </p>
      ) : (
        <div className="space-y-3" role="list" aria-label="Headers">
          {headers.map((h, i) => {
            const n = i + 1;
            const nameErr = errors[`headers.${i}.name`];
            const valueErr = errors[`headers.${i}.value`];
            const storedSecret = h.secret && h.storedAs !== null && !h.replacing;
            return (
              <div key={h.key} role="listitem" className="grid grid-cols-[1fr_1.4fr_auto_auto] items-start gap-3">
                <div>
                  <label htmlFor={`header-${h.key}-name`} className="sr-only">
                    Header {n} name
                  </label>
                  <input
                    id={`header-${h.key}-name`}
                    className={`${smallInputClass} font-mono`}
                    placeholder="Authorization"
                    value={h.name}
                    onChange={(e) => patch(h.key, { name: e.target.value })}
                    aria-invalid={!!nameErr}
                    aria-describedby={nameErr ? `header-${h.key}-name-error` : undefined}
                  />
                  <InlineError id={`header-${h.key}-name-error`} message={nameErr} />
                </div>
                <div>
                  {storedSecret ? (
                    <div className="flex items-center gap-2 py-1 text-sm">
                      <span className="font-mono text-slate-700">
                        •••• (set)<span className="sr-only"> header {n} value is stored</span>
                      </span>
                      <button
                        type="button"
                        className="text-xs font-medium text-sky-700 hover:underline"
                        onClick={() => patch(h.key, { replacing: true, value: "" })}
                      >
                        Replace
                      </button>
                    </div>
                  ) : (
                    <>
                      <label htmlFor={`header-${h.key}-value`} className="sr-only">
                        Header {n} value
                      </label>
                      <input
                        id={`header-${h.key}-value`}
                        type={h.secret ? "password" : "text"}
                        autoComplete="off"
                        className={`${smallInputClass} font-mono`}
                        placeholder={h.secret ? (h.storedAs ? "new value" : "secret value") : "value"}
                        value={h.value}
                        onChange={(e) => patch(h.key, { value: e.target.value })}
                        aria-invalid={!!valueErr}
                        aria-describedby={valueErr ? `header-${h.key}-value-error` : undefined}
                      />
                      {h.replacing && (
                        <button
                          type="button"
                          className="mt-0.5 text-xs text-sky-700 hover:underline"
                          onClick={() => patch(h.key, { replacing: false, value: "" })}
                        >
                          Keep the stored value
                        </button>
                      )}
                    </>
                  )}
                  <InlineError id={`header-${h.key}-value-error`} message={valueErr} />
                </div>
                <label className="flex items-center gap-1.5 py-1 text-sm text-slate-700">
                  <input
                    type="checkbox"
                    checked={h.secret}
                    onChange={(e) =>
                      patch(h.key, {
                        secret: e.target.checked,
                        // Turning a stored secret into a plain header needs its value typed in.
                        replacing: h.storedAs !== null && !e.target.checked ? false : h.replacing,
                        value: h.storedAs !== null ? "" : h.value,
                        storedAs: e.target.checked ? h.storedAs : null,
                      })
                    }
                  />
                  Secret
                  <span className="sr-only"> (header {n})</span>
                </label>
                <button
                  type="button"
                  className="py-1 text-sm text-rose-700 hover:underline"
                  aria-label={`Remove header ${n}`}
                  onClick={() => setHeaders((rows) => rows.filter((r) => r.key !== h.key))}
                >
                  Remove
                </button>
              </div>
            );
          })}
        </div>
      )}
    </Card>
  );
}
