import type { StockKind } from '../domain/stock.ts';
import { KeyValueStore } from '../state/kv.ts';
import { kvKey } from '../state/kvKeys.ts';
import { RemoteStock } from '../state/stock/remoteStock.ts';
import type { ReconcileDeps } from './reconcile.ts';

/**
 * Reads the portal's whole stock of one kind into remote_stock, for a full export that needs to
 * know every key the portal holds (inbox `absent: "zero"`, SNAPSHOT_ABSENT=zero) where no
 * complete read was ever made. Unlike reconcileKind it keeps no resume state of its own, so it
 * may run beside a reconciliation of the same kind: each page is stored as read (keys that
 * differ from the desired stock become pending, as in any read), and at the end the keys the
 * portal no longer has are forgotten and the kind is marked read. True when the read was
 * complete; false when stopped (shutdown) before the last page.
 */
export async function readWholeKind(kind: StockKind, deps: ReconcileDeps): Promise<boolean> {
  const remote = new RemoteStock(deps.db);
  const started = deps.clock.now();
  let rows = 0;
  let complete = false;
  let cursor: string | null = null;
  while (!deps.signal?.aborted) {
    const askedAt = deps.clock.now();
    const page = await deps.reader.page(kind, cursor, { signal: deps.signal });
    remote.storeRead(page.rows, deps.clock.now(), askedAt);
    rows += page.rows.length;
    if (page.nextCursor === null || page.nextCursor === '') {
      complete = true;
      break;
    }
    if (page.nextCursor === cursor)
      throw new Error('the portal answered a page with its own cursor as the next one');
    cursor = page.nextCursor;
  }
  if (!complete) return false;
  deps.db.transaction(() => {
    remote.forgetUnseen(kind, started);
    const kv = new KeyValueStore(deps.db);
    kv.set(kvKey.established(kind), true);
    kv.set(kvKey.readAt(kind), deps.clock.now());
  })();
  deps.log.info(
    { event: 'remote.read', kind, rowsRead: rows, ms: deps.clock.now() - started },
    `read the portal's ${kind} stock: ${rows} rows`,
  );
  return true;
}
