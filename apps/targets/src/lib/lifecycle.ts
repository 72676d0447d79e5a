export interface Closable {
  name: string;
  close(graceMs?: number): Promise<void>;
}

/**
 * Close everything on SIGTERM/SIGINT: stop accepting, let in-flight work finish within the
 * grace period, then exit. A second signal exits at once for an operator who will not wait.
 */
export function closeOnSignals(services: readonly Closable[], graceMs: number): void {
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) {
      console.error(`[targets] ${signal} again, exiting now`);
      process.exit(1);
    }
    closing = true;
    console.log(`[targets] ${signal}: closing ${services.map((s) => s.name).join(", ")}`);
    Promise.allSettled(services.map((s) => s.close(graceMs))).then((results) => {
      const failed = results.filter((r) => r.status === "rejected");
      for (const failure of failed) console.error("[targets] close failed:", (failure as PromiseRejectedResult).reason);
      process.exit(failed.length > 0 ? 1 : 0);
    });
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

/** Run `main`, printing a startup failure as one readable message instead of a stack. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(`[targets] failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
