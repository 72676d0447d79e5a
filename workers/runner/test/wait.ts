/**
 * Poll `check` every 100 ms until it returns something truthy, and return that. On timeout the
 * error names what was awaited and carries `context()` (e.g. the worker processes' logs).
 */
export async function waitFor<T>(
  check: () => Promise<T | false | null | undefined>,
  timeoutMs: number,
  what: string,
  context: () => string = () => "",
): Promise<T> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}\n${context()}`);
}
