/**
 * A parse-pool thread: reads uploads with `readUploadContent` (or splits a JSON upload body with
 * `splitUploadBody`) and posts the result back.
 */
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { ImportError } from "./import-error";
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

parentPort?.on("message", (task: { id: number; kind?: "read" | "split"; input: UploadContent }) => {
  try {
    const value = task.kind === "split" ? splitUploadBody(task.input.content) : readUploadContent(task.input);
    parentPort?.postMessage({ id: task.id, ok: true, value });
  } catch (err) {
    const error =
      err instanceof ImportError
        ? { importError: true, message: err.message, format: err.format, line: err.line, field: err.field }
        : { importError: false, message: err instanceof Error ? err.message : String(err) };
    parentPort?.postMessage({ id: task.id, ok: false, error });
  }
});
