import type { StateDb } from '../db.ts';

/** A distribution centre as the portal lists it; only code and is_active are relied on. */
export interface DistributionCentreRecord {
  readonly code: string;
  readonly is_active: boolean;
  readonly [field: string]: unknown;
}

export interface CachedDistributionCentre {
  readonly code: string;
  readonly isActive: boolean;
  readonly record: DistributionCentreRecord;
  readonly refreshedAt: number;
}

/** Replaces the cached list with the portal's current one, in one transaction. */
export function replaceDistributionCentres(
  db: StateDb,
  list: readonly DistributionCentreRecord[],
  now: number,
): void {
  const clear = db.prepare('DELETE FROM distribution_centres');
  const insert = db.prepare(
    `INSERT INTO distribution_centres (code, is_active, record, refreshed_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (code) DO UPDATE SET is_active = excluded.is_active, record = excluded.record,
       refreshed_at = excluded.refreshed_at`,
  );
  db.transaction(() => {
    clear.run();
    for (const dc of list) insert.run(dc.code, dc.is_active ? 1 : 0, JSON.stringify(dc), now);
  })();
}

/** The cached list, by code. */
export function listDistributionCentres(db: StateDb): CachedDistributionCentre[] {
  const rows = db
    .prepare('SELECT code, is_active, record, refreshed_at FROM distribution_centres ORDER BY code')
    .all() as { code: string; is_active: number; record: string; refreshed_at: number }[];
  return rows.map((r) => ({
    code: r.code,
    isActive: r.is_active === 1,
    record: JSON.parse(r.record) as DistributionCentreRecord,
    refreshedAt: r.refreshed_at,
  }));
}
