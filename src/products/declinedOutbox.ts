import { existsSync } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../domain/clock.ts';
import { intoPlace, writeDurably } from '../files/durable.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import type { CatalogueEntry } from '../state/products/catalogueStore.ts';
import { type DeclinedFile, ProductDecisions } from '../state/products/productDecisions.ts';

/**
 * The products the platform declined, handed to the ERP in `outbox/` as
 * `products-declined-<time>-<n>.json`: the file's name and content are committed with the
 * decisions (declined_files), then the file is written under a hidden temporary name, flushed,
 * and renamed into view, so that the ERP never reads half a file and a crash between the commit
 * and the rename writes the same file once more, never a second one.
 */

/** The prefix every declined-products file's name starts with. */
export const DECLINED_FILE_PREFIX = 'products-declined-';

/**
 * The temporary name of a file being written. Not `.<name>.tmp`: the shipments' outbox clears
 * temporary files of that form it does not know.
 */
const tempName = (name: string) => `.${name}.partial`;
const TEMP = /^\.(products-declined-.+\.json)\.partial$/;

/** Sorts by time (UTC, to the millisecond); `seq` (the first decision's id) breaks ties. */
export function declinedFileName(now: number, seq: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${DECLINED_FILE_PREFIX}${stamp}-${String(seq).padStart(6, '0')}.json`;
}

/** One declined product in the file, in the API's field names. */
export interface DeclinedEntry {
  readonly product: CatalogueEntry;
  readonly reason: string | null;
  readonly noticedAt: number;
}

/** The file's content: when it was made, how many, and each product with its reason. */
export function declinedFileContent(entries: readonly DeclinedEntry[], now: number): string {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const products = entries.map(({ product: p, reason, noticedAt }) => ({
    sku: p.sku,
    platform_sku: p.platformSku,
    name: p.name,
    status: p.status,
    platform_status: 'declined',
    declined_reason: reason,
    declined_at: iso(noticedAt),
    created_at: iso(p.createdAt),
    created_by: p.createdBy,
  }));
  return `${JSON.stringify({ generated_at: iso(now), count: products.length, products }, null, 2)}\n`;
}

export interface DeclinedOutboxDeps {
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  /** The data dir's `outbox/`. */
  readonly outboxDir: string;
}

/** Puts one committed file in view (a file already in place is left as it is), then records so. */
async function putInPlace(f: DeclinedFile, deps: DeclinedOutboxDeps): Promise<void> {
  const final = join(deps.outboxDir, f.name);
  // A full disk leaves no partial file; the hand-over stays in state.db for the next look.
  if (!existsSync(final)) {
    await intoPlace(
      final,
      (tmp) => writeDurably(tmp, f.content),
      join(deps.outboxDir, tempName(f.name)),
    );
  }
  new ProductDecisions(deps.db).fileWritten(f.name, deps.clock.now());
  deps.log.info(
    { event: 'products.declined_exported', file: f.name, count: f.products },
    `outbox: ${f.products} declined product(s) handed to the ERP in ${f.name}`,
  );
}

/**
 * Writes every committed declined-products file not yet in `outbox/` (the ones just recorded,
 * and any a crash or a full disk interrupted). Returns their names.
 */
export async function writeDeclinedFiles(deps: DeclinedOutboxDeps): Promise<string[]> {
  const files = new ProductDecisions(deps.db).unwrittenFiles();
  for (const f of files) await putInPlace(f, deps);
  return files.map((f) => f.name);
}

/**
 * Removes the temporary files of declined-products hand-overs that a crash left (their content
 * is in state.db, written again by writeDeclinedFiles). Run once when the flow starts, before it
 * writes anything.
 */
export async function clearDeclinedTemps(outboxDir: string): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(outboxDir).catch(() => [] as string[])) {
    if (!TEMP.test(entry)) continue;
    await unlink(join(outboxDir, entry)).catch(() => {});
    removed++;
  }
  return removed;
}
