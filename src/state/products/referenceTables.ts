import type { ReferenceData } from '../../domain/catalogue.ts';
import type { StateDb } from '../db.ts';
import {
  type DistributionCentreRecord,
  listDistributionCentres,
  replaceDistributionCentres,
} from '../stock/distributionCentres.ts';

/**
 * The portal's reference data that a products file's rows are checked against: sites and tax
 * rates (tables `portal_sites`, `tax_rates`) and the distribution centres (`distribution_centres`,
 * the list stock rows are checked against too), and when they were last read as a whole.
 */

export interface ReferenceLists {
  readonly sites: ReadonlyArray<{ readonly code: string; readonly name: string }>;
  readonly taxRates: ReadonlyArray<{ readonly id: number; readonly [field: string]: unknown }>;
  /** The centres, when they were read with the others; absent: the cached list stays. */
  readonly centres?: readonly DistributionCentreRecord[];
}

/** Replaces the lists with the portal's, in one transaction, and records when. */
export function storeReferences(db: StateDb, lists: ReferenceLists, now: number): void {
  db.transaction(() => {
    db.prepare('DELETE FROM portal_sites').run();
    db.prepare('DELETE FROM tax_rates').run();
    const site = db.prepare<[string, string, number]>(
      'INSERT OR REPLACE INTO portal_sites (code, name, refreshed_at) VALUES (?, ?, ?)',
    );
    for (const s of lists.sites) site.run(s.code, s.name, now);
    const rate = db.prepare<[number, string, number]>(
      'INSERT OR REPLACE INTO tax_rates (id, record, refreshed_at) VALUES (?, ?, ?)',
    );
    for (const t of lists.taxRates) rate.run(t.id, JSON.stringify(t), now);
    if (lists.centres !== undefined) replaceDistributionCentres(db, lists.centres, now);
    markRefreshed(db, 'references', now);
  })();
}

/** When a list (`references`, `brands`) was last read whole; null: never. */
export function refreshedAt(db: StateDb, list: 'references' | 'brands'): number | null {
  return (
    db
      .prepare<[string], { at: number }>('SELECT at FROM catalogue_refreshes WHERE list = ?')
      .get(list)?.at ?? null
  );
}

export function markRefreshed(db: StateDb, list: 'references' | 'brands', now: number): void {
  db.prepare<[string, number]>(
    'INSERT INTO catalogue_refreshes (list, at) VALUES (?, ?) ON CONFLICT (list) DO UPDATE SET at = excluded.at',
  ).run(list, now);
}

/** The reference data as kept; works on a read-only connection (`plan`). */
export function readReferenceData(db: StateDb): ReferenceData {
  const sites = db
    .prepare<[], { code: string }>('SELECT code FROM portal_sites ORDER BY code')
    .all()
    .map((r) => r.code);
  const taxRateIds = db
    .prepare<[], { id: number }>('SELECT id FROM tax_rates ORDER BY id')
    .all()
    .map((r) => r.id);
  const centres = listDistributionCentres(db).map((c) => ({ code: c.code, active: c.isActive }));
  return { sites, taxRateIds, centres };
}
