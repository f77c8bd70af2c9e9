import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { Profile } from '../../config/profiles.ts';
import { collectFile } from '../ingest/collect.ts';
import type { CollectedFile } from '../ingest/collectTypes.ts';
import type { InboxFormat } from '../parse/records.ts';
import type { StringSpill } from '../parse/workbook/strings.ts';
import { readPlanFor } from '../validate/readPlan.ts';

/** One row of a file as a suggested profile reads it (a row spread to places gives one per place). */
export interface SuggestedRow {
  /** The row's line (worksheet row, JSON element), as reports count. */
  readonly line: number;
  /**
   * What became of it: accepted (its key and quantity: for rows of one key added up, the sum so
   * far), rejected (why), skipped or kept by the profile's rules, superseded by a later row of
   * its key or added up into one; `not read`: the profile says what this version cannot read
   * yet, and `cells` shows what it names in the row.
   */
  readonly outcome:
    | 'accepted'
    | 'rejected'
    | 'skipped'
    | 'kept'
    | 'superseded'
    | 'added up'
    | 'not read';
  /** `factory:SKU`, `dc:CODE:SKU` or `shipment:ORDER`. */
  readonly key?: string;
  readonly quantity?: number;
  /** A confirmation: its action, carrier and tracking number. */
  readonly confirmation?: string;
  /** A rejected row: the field, why, and the value as written. */
  readonly reason?: string;
  /** A row not read: the profile's fields → the cell each names. */
  readonly cells?: Readonly<Record<string, string>>;
}

export interface HeadReadOptions {
  readonly format: InboxFormat;
  readonly fileName: string;
  /** The data rows of the head, in order: the lines a row may stand on. */
  readonly lines: readonly number[];
  readonly maxRows: number;
  readonly maxSkuLength: number;
  readonly maxRecordBytes?: number;
  readonly spillStrings: () => StringSpill;
  /** SYNC_TIMEZONE: what `today()` means in the profile's expressions (default UTC). */
  readonly timeZone?: string;
}

/**
 * The first rows of a file as `profile` reads them: the file's head collected exactly as
 * ingestion collects it (collectFile with the profile's read plan, stopped after `maxRows`
 * rows, nothing staged, nothing written), then told row by row from what it gathered and
 * from the rows the profile's rules left out or kept as each was taken. The reason instead when
 * the file is not readable with the profile.
 */
export async function readHeadAs(
  path: string,
  profile: Profile,
  o: HeadReadOptions,
): Promise<{ rows: SuggestedRow[] } | { reason: string }> {
  const plan = readPlanFor([profile], o.fileName, {
    now: new Date(),
    timeZone: o.timeZone ?? 'UTC',
  });
  const file = await open(path, 'r');
  // Which rows the profile's rules left out or kept, told by the counts moving as each row is taken.
  const ruled = new Map<number, 'skipped' | 'kept'>();
  let last = { skipped: 0, kept: 0 };
  const onRow = (line: number, t: { readonly skipped: number; readonly kept: number }) => {
    if (t.skipped > last.skipped) ruled.set(line, 'skipped');
    else if (t.kept > last.kept) ruled.set(line, 'kept');
    last = { skipped: t.skipped, kept: t.kept };
  };
  try {
    const c = await collectFile(file.createReadStream({ start: 0, autoClose: false }), {
      format: o.format,
      maxSkuLength: o.maxSkuLength,
      ...(o.maxRecordBytes === undefined ? {} : { maxRecordBytes: o.maxRecordBytes }),
      plan,
      maxRows: o.maxRows,
      onRow,
      workbook: { file, dir: tmpdir(), spill: o.spillStrings },
    });
    if (!c.ok) return { reason: c.reason };
    return { rows: rowsOf(c, o.lines.slice(0, c.rowsRead), ruled) };
  } finally {
    await file.close();
  }
}

/** Each line's outcome, from what the collector gathered over those lines. */
function rowsOf(
  c: CollectedFile,
  lines: readonly number[],
  ruled: ReadonlyMap<number, 'skipped' | 'kept'>,
): SuggestedRow[] {
  const byLine = new Map<number, SuggestedRow[]>();
  const add = (row: SuggestedRow) => byLine.set(row.line, [...(byLine.get(row.line) ?? []), row]);
  for (const r of c.rejected) {
    add({
      line: r.line,
      outcome: 'rejected',
      ...(r.key === undefined ? {} : { key: r.key }),
      reason: `${r.field} ${r.reason}${r.value === undefined ? '' : ` ("${r.value}")`}`,
    });
  }
  const dc = c.kind === 'dc_stock';
  for (const s of c.stock.values()) {
    add({
      line: s.line,
      outcome: 'accepted',
      key: dc ? `dc:${s.dc}:${s.sku}` : `factory:${s.sku}`,
      quantity: s.quantity,
    });
  }
  for (const k of c.duplicates.keys) {
    for (const line of k.lines.slice(0, -1)) {
      add({ line, outcome: (c.summed ?? 0) > 0 ? 'added up' : 'superseded', key: k.key });
    }
  }
  for (const x of c.confirmations) {
    add({
      line: x.line,
      outcome: 'accepted',
      key: `shipment:${x.orderNumber}`,
      confirmation: `${x.action}, ${x.carrier} ${x.trackingNumber}`,
    });
  }
  for (const [line, outcome] of ruled) add({ line, outcome });
  return lines.flatMap((line) => byLine.get(line) ?? []);
}
