/**
 * A worker thread that checkpoints state.db's WAL while a large staged apply is merged
 * (walCheckpoints.ts starts it): it copies the pages the merge's commits
 * appended to the WAL into the database file and flushes both, work that would otherwise run
 * inside a commit on the event loop, for as long as the disk takes.
 *
 * Its own connection to state.db (src/state/walCheckpointer.ts); passive checkpoints only, which
 * neither wait for nor stop the writer: the merge commits on while one runs.
 *
 * Messages out: `{ ready: true }` once its connection is open. In: `{ checkpoint: true }`,
 * answered `{ log, copied }` (frames in the WAL, frames now in the database file);
 * `{ close: true }`, answered `{ closed: true }` once the connection is closed. A failure is
 * answered `{ error: { name, message, code } }` and ends the thread.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { openWalCheckpointer } from '../../state/walCheckpointer.ts';
import { failAndClose } from '../staging/workerFailure.ts';

type Message = { readonly checkpoint: true } | { readonly close: true };

// Imported anywhere but in the worker thread walCheckpoints.ts starts, it does nothing.
if (
  parentPort !== null &&
  (workerData as { checkpoint?: unknown } | null)?.checkpoint !== undefined
) {
  serve(parentPort, (workerData as { checkpoint: string }).checkpoint);
}

function serve(port: MessagePort, path: string): void {
  const fail = (err: unknown): void => failAndClose(port, err);
  try {
    const checkpointer = openWalCheckpointer(path);
    port.postMessage({ ready: true });
    port.on('message', (m: Message) => {
      try {
        if ('checkpoint' in m) {
          port.postMessage(checkpointer.checkpoint());
          return;
        }
        checkpointer.close();
        port.postMessage({ closed: true });
        port.close();
      } catch (err) {
        fail(err);
      }
    });
  } catch (err) {
    fail(err);
  }
}
