/**
 * After a stall, whether a run may go on sending, asked of the one who knows (the server, or
 * PostgreSQL) until it answers. A connection that was idle while the process was frozen is often
 * gone when it resumes (the server closed it meanwhile), so the first attempt may fail for that
 * alone: failures are asked again every `retryMs` until `timeoutMs` has passed. An answer, a
 * timeout, or `signal` aborting ends it; no answer counts as "no": nothing more is sent for a run
 * not known to be running.
 */
export async function askUntilAnswered(
  ask: () => Promise<boolean>,
  options: { timeoutMs: number; retryMs?: number; signal?: AbortSignal },
): Promise<{ goOn: boolean; error: unknown }> {
  const { timeoutMs, retryMs = 250, signal } = options;
  const deadline = Date.now() + timeoutMs;
  let error: unknown = null;
  while (!signal?.aborted) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    let timer: NodeJS.Timeout | undefined;
    try {
      const goOn = await Promise.race([
        ask(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)), left);
        }),
      ]);
      return { goOn, error: null };
    } catch (err) {
      error = err;
    } finally {
      clearTimeout(timer);
    }
    if (deadline - Date.now() <= retryMs) break;
    await new Promise((r) => setTimeout(r, retryMs));
  }
  return {
    goOn: false,
    error: error ?? new Error(signal?.aborted ? "stopped" : `no answer within ${Math.round(timeoutMs / 1000)} s`),
  };
}
