/**
 * A parse-pool thread: reads uploads with `readUploadContent` (splits a JSON upload body with
 * `splitUploadBody`, reads an agent's report body with `readAgentBody`) and posts the result back.
 */
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { readAgentBody } from "./agent-body";
import { ImportError } from "./import-error";
import type { ParseTaskKind } from "./parse-pool";
import { PARSE_THREAD_NICE } from "./parse-priority";
import { readUploadContent, splitUploadBody, type UploadContent } from "./read-upload";

// Parsing is one uploader's work; the thread that answers every other request comes first. A
// process's threads share its CPU (the kernel groups tasks by session), so a parse running flat
// out at the same priority took the request thread's turns: other tenants' p99 rose from ~25 ms
// to 0.5–0.7 s while oversized uploads were refused back to back. At a lower priority the parse
// still has every idle cycle. On Linux a priority set for pid 0 is the calling thread's alone.
try {
  setPriority(0, PARSE_THREAD_NICE);
} catch {
  // Not permitted or not supported here: parse at the process's priority.
}

function run(kind: ParseTaskKind | undefined, input: UploadContent): unknown {
  switch (kind) {
    case "split":
      return splitUploadBody(input.content);
    case "agent-checkpoint":
      return readAgentBody("checkpoint", input.content);
    case "agent-result":
      return readAgentBody("result", input.content);
    default:
      return readUploadContent(input);
  }
}

parentPort?.on("message", (task: { id: number; kind?: ParseTaskKind; input: UploadContent }) => {
  try {
    const value = run(task.kind, task.input);
    parentPort?.postMessage({ id: task.id, ok: true, value });
  } catch (err) {
    const error =
      err instanceof ImportError
        ? { importError: true, message: err.message, format: err.format, line: err.line, field: err.field }
        : { importError: false, message: err instanceof Error ? err.message : String(err) };
    parentPort?.postMessage({ id: task.id, ok: false, error });
  }
});
