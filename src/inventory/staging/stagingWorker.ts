/**
 * A worker thread that stages a large file's rows (src/inventory/staging/stagingFile.ts hands a scratch database
 * to it once the file is large): the thread that reads and checks the file goes on with the next
 * rows while this one writes them, on the machine's other core.
 *
 * Messages in: `{ stock: StockBatch }`, `{ named: NamedRow[] }`, each answered `{ done: true }`
 * once written (the reading side keeps a few in flight, no more); `{ close: true, listed? }`,
 * answered `{ closed: true, summary? }` once the rows out of key order are settled, the replaced
 * rows summed up for the report as `listed` says (duplicateSummary.ts) and the connection
 * closed. A failure is answered `{ error: { name, message, code } }` and ends the thread.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import {
  type DuplicatesListed,
  summarizeDuplicates,
} from '../../state/staging/duplicateSummary.ts';
import {
  type NamedRow,
  openStagingDb,
  type StagingOrder,
  StagingWriter,
  type StockBatch,
} from '../../state/staging/stagingWriter.ts';
import { failAndClose } from './workerFailure.ts';

type Message =
  | { readonly stock: StockBatch }
  | { readonly named: readonly NamedRow[] }
  | { readonly close: true; readonly listed?: DuplicatesListed };

// Imported anywhere but in the worker thread stagingFile.ts starts (a check loading every module,
// say), it does nothing.
if (parentPort !== null && (workerData as { path?: unknown } | null)?.path !== undefined) {
  serve(parentPort, workerData as { path: string; order: StagingOrder });
}

function serve(port: MessagePort, { path, order }: { path: string; order: StagingOrder }): void {
  const fail = (err: unknown): void => failAndClose(port, err);
  try {
    const writer = new StagingWriter(openStagingDb(path, false), order);
    port.on('message', (m: Message) => {
      try {
        if ('stock' in m) writer.stage(m.stock);
        else if ('named' in m) writer.name(m.named);
        else {
          writer.settle();
          const summary = m.listed && summarizeDuplicates(writer.db, m.listed);
          writer.db.close();
          port.postMessage({ closed: true, summary });
          port.close();
          return;
        }
        port.postMessage({ done: true });
      } catch (err) {
        fail(err);
      }
    });
  } catch (err) {
    fail(err);
  }
}
