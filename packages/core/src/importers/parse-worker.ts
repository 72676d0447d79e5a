/** A parse-pool thread: reads uploads with `readUploadContent` and posts the result back. */
import { parentPort } from "node:worker_threads";
import { ImportError } from "./import-error";
import { readUploadContent, type UploadContent } from "./read-upload";

parentPort?.on("message", (task: { id: number; input: UploadContent }) => {
  try {
    parentPort?.postMessage({ id: task.id, ok: true, value: readUploadContent(task.input) });
  } catch (err) {
    const error =
      err instanceof ImportError
        ? { importError: true, message: err.message, format: err.format, line: err.line, field: err.field }
        : { importError: false, message: err instanceof Error ? err.message : String(err) };
    parentPort?.postMessage({ id: task.id, ok: false, error });
  }
});
