/**
 * A parse-pool thread: reads uploads with `readUploadContent` (or splits a JSON upload body with
 * `splitUploadBody`) and posts the result back.
 */
import { parentPort } from "node:worker_threads";
import { ImportError } from "./import-error";
import { readUploadContent, splitUploadBody, type UploadContent } from "./read-upload";

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
