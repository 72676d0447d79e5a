/**
 * Runs once when the server starts. Under the production server (server.mjs) it hands over the
 * direct path for runs' live streams, which server.mjs calls before Next.js routing.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { serveLiveStream } = await import("./server/live-stream-node");
  (globalThis as { benchboardServeLive?: typeof serveLiveStream }).benchboardServeLive = serveLiveStream;
}
