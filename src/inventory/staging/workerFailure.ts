import type { MessagePort } from 'node:worker_threads';

/**
 * How a worker thread of this folder (stagingWorker.ts, checkpointWorker.ts) reports the error
 * that ends it: `{ error: { name, message, code } }` (the code when it is a string, such as
 * SQLite's), then it closes its port, which ends the thread.
 */
export function failAndClose(port: MessagePort, err: unknown): void {
  const e = err as { name?: string; message?: string; code?: unknown };
  port.postMessage({
    error: {
      name: e?.name ?? 'Error',
      message: e?.message ?? String(err),
      ...(typeof e?.code === 'string' ? { code: e.code } : {}),
    },
  });
  port.close();
}
