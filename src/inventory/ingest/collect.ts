import type { Readable } from 'node:stream';
import type { ConfirmationInput } from '../../state/confirmations.ts';
import type { StagingFile } from '../../state/staging.ts';
import { createDcCheck, dcRejection } from '../dcCheck.ts';
import type { DcDirectory } from '../dcDirectory.ts';
import {
  ByteTap,
  type Dialect,
  FileFormatError,
  type InboxFormat,
  type PositionUnit,
  positionUnit,
  readRecords,
} from '../parse/index.ts';
import type { ReadPlan } from '../profiles.ts';
import { type FileKind, ignoredColumns, objectKind } from '../validate/kinds.ts';
import { addConstants, columnKey, detectKindWithProfile, mapFields } from '../validate/mapping.ts';
import {
  type RowError,
  showValue,
  validateConfirmationRow,
  validateStockRow,
} from '../validate/rows.ts';
import { StockRows } from './stockRows.ts';

/** Most rejected rows listed in a report; the rest are counted in `rejectedOmitted`. */
export const MAX_REJECTED_LISTED = 1000;
/** Most duplicate keys listed in a report (each with up to 10 lines); the rest are counted. */
export const MAX_DUPLICATE_KEYS_LISTED = 1000;
const MAX_LINES_PER_DUPLICATE = 10;
/** Most ignored columns listed in a report, each cut like a rejected value (100 characters). */
const MAX_IGNORED_COLUMNS = 50;

export type { StockEntry } from './stockRows.ts';

export interface RejectedRow extends RowError {
  readonly line: number;
}

export interface DuplicateKey {
  /** `factory:SKU` or `dc:CODE:SKU`. */
  readonly key: string;
  /** Lines (or elements) of every row with this key, in order; the last one won. */
  readonly lines: number[];
}

interface Common {
  readonly format: InboxFormat;
  readonly positions: PositionUnit;
  readonly rowsRead: number;
  /** sha256 of the bytes read, hex; undefined when reading stopped early. */
  readonly hash: string | undefined;
  /** What delimited text was read as (once its header was found); undefined for other formats. */
  readonly dialect?: Dialect;
  /** The worksheet row the header was found on (`.xlsx`). */
  readonly headerRow?: number;
  /** Accepted rows whose negative quantity was offered as 0 (a profile's `negative: "zero"`). */
  readonly clamped: number;
}

export interface CollectedFile extends Common {
  readonly ok: true;
  readonly kind: FileKind;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  readonly rejected: RejectedRow[];
  readonly rejectedOmitted: number;
  readonly ignoredColumns: string[];
  /** Stock rows by key (dedup: last row wins); empty for confirmations, and when staged. */
  readonly stock: StockRows;
  /** The staged set, when the rows went to a scratch database (CollectOptions.stage). */
  readonly staged?: StagingFile;
  /** Confirmation rows in file order; empty for stock. */
  readonly confirmations: ConfirmationInput[];
  readonly duplicates: { rows: number; keys: DuplicateKey[]; keysOmitted: number };
  /** Whether distribution-centre codes were checked against the portal's list. */
  readonly dcChecked: boolean;
}

export interface UnreadableFile extends Common {
  readonly ok: false;
  readonly kind: FileKind | undefined;
  readonly reason: string;
  /** Rows that were bad on their own before the file was refused (none is applied). */
  readonly rowsRejected?: number;
  /** The staged set so far, when CollectOptions.stage was given: the caller discards it. */
  readonly staged?: StagingFile;
  readonly rejected?: RejectedRow[];
  readonly rejectedOmitted?: number;
}

export interface CollectOptions {
  readonly format: InboxFormat;
  readonly maxSkuLength: number;
  /** Checks DC codes (refreshing once per file when an unknown one appears); none: unchecked. */
  readonly dcDirectory?: DcDirectory;
  /** Called every 10,000 rows read. */
  readonly onProgress?: (rowsRead: number) => void;
  /**
   * How to read the file: its profile's reader options, column mapping and quantity conventions
   * (readPlanFor). Unset: the defaults (encoding and delimiter detected, the header on line 1,
   * the API's field names, `.` as the decimal mark, negatives rejected).
   */
  readonly plan?: ReadPlan;
  /**
   * Where stock rows go: a scratch database made on the first stock row (bounded memory, for
   * ingestion); without it, rows are kept in memory (dry runs, tests). The caller owns the file
   * (discards it when the result is not applied).
   */
  readonly stage?: () => StagingFile;
}

/**
 * Reads, checks and gathers one inbox file: no I/O but reading `source` (and a DC list refresh).
 * Returns the accepted rows, the rejected ones with their reasons, duplicates, ignored columns;
 * or why the whole file cannot be taken. Throws only for I/O errors and DcListUnavailableError.
 */
export async function collectFile(
  source: Readable,
  options: CollectOptions,
): Promise<CollectedFile | UnreadableFile> {
  const tap = new ByteTap();
  const { format, plan } = options;
  const positions = positionUnit(format);
  const mapping = plan?.mapping;
  const rules = { maxSkuLength: options.maxSkuLength, quantity: plan?.quantity ?? {} };
  const objects = format === 'json' || format === 'jsonl';
  // Readers of a header rename its columns once; their rows only get the constants added.
  const renameColumn = mapping === undefined || objects ? undefined : columnKey(mapping);
  const constants = mapping !== undefined && Object.keys(mapping.constants).length > 0;
  let dialect: Dialect | undefined;
  let headerRow: number | undefined;
  let kind: FileKind | undefined;
  let clamped = 0;
  let rowsRead = 0;
  let rowsAccepted = 0;
  let rowsRejected = 0;
  const rejected: RejectedRow[] = [];
  const ignored = new Set<string>();
  const stock = new StockRows();
  let staged: StagingFile | undefined;
  const confirmations: ConfirmationInput[] = [];
  const dupLines = new Map<string, number[]>();
  let dupRows = 0;
  let dupKeysOmitted = 0;
  const dcs = options.dcDirectory;
  const dcCheck = dcs === undefined ? undefined : createDcCheck(dcs);

  const badSoFar = () => ({
    rowsRejected,
    rejected,
    rejectedOmitted: rowsRejected - rejected.length,
    clamped,
    ...(dialect === undefined ? {} : { dialect }),
    ...(headerRow === undefined ? {} : { headerRow }),
    ...(staged === undefined ? {} : { staged }),
  });
  const fail = (reason: string): UnreadableFile => {
    source.destroy();
    return { ok: false, format, positions, kind, reason, rowsRead, hash: undefined, ...badSoFar() };
  };
  const ignore = (columns: Iterable<string>) => {
    for (const c of columns) {
      if (ignored.size >= MAX_IGNORED_COLUMNS) return;
      ignored.add(showValue(c) ?? c);
    }
  };
  const reject = (line: number, e: RowError) => {
    rowsRejected++;
    if (options.stage !== undefined) {
      staged ??= options.stage();
      staged.reject({ line, field: e.field, reason: e.reason, value: e.value });
    }
    if (rejected.length >= MAX_REJECTED_LISTED) return;
    rejected.push(
      e.value === undefined
        ? { line, field: e.field, reason: e.reason }
        : { line, field: e.field, reason: e.reason, value: e.value },
    );
  };

  try {
    const reading = readRecords(format, source, tap, {
      delimited: {
        ...plan?.delimited,
        ...(renameColumn === undefined ? {} : { renameColumn }),
        onDialect: (d) => {
          dialect = d;
        },
      },
      xlsx: {
        ...plan?.xlsx,
        ...(renameColumn === undefined ? {} : { renameColumn }),
        onHeader: (row) => {
          headerRow = row;
        },
      },
    });
    for await (const batch of reading) {
      for (const event of batch) {
        if (event.type === 'columns') {
          const detected = detectKindWithProfile(event.columns, mapping);
          if (!detected.ok) return fail(detected.reason);
          kind = detected.kind;
          ignore(detected.ignored);
          continue;
        }
        rowsRead++;
        if (options.onProgress && rowsRead % 10_000 === 0) options.onProgress(rowsRead);
        if (event.type === 'bad') {
          const { line, field, reason, value } = event;
          reject(line, value === undefined ? { field, reason } : { field, reason, value });
          continue;
        }
        const { line } = event;
        let fields = event.fields;
        if (mapping !== undefined) {
          if (objects) fields = mapFields(fields, mapping);
          else if (constants) addConstants(fields, mapping);
        }
        if (objects) {
          const keys = Object.keys(fields);
          const claims = objectKind(keys);
          if (claims === undefined) {
            reject(line, { field: '(row)', reason: 'names none of the known columns' });
            continue;
          }
          if (kind === undefined) kind = mapping?.kind ?? claims;
          else if (claims !== kind) {
            return fail(
              `mixed kinds: ${positions} ${line} is ${claims.replace('_', ' ')}, earlier rows are ${kind.replace('_', ' ')}`,
            );
          }
          if (ignored.size < MAX_IGNORED_COLUMNS) ignore(ignoredColumns(kind, keys));
        }
        if (kind === 'shipment_confirmations') {
          const r = validateConfirmationRow(fields);
          if (!r.ok) {
            reject(line, r);
            continue;
          }
          confirmations.push({ ...r.row, line });
          rowsAccepted++;
          continue;
        }
        const stockKind = kind!;
        const r = validateStockRow(stockKind as 'factory_stock' | 'dc_stock', fields, rules);
        if (!r.ok) {
          reject(line, r);
          continue;
        }
        const row = r.row;
        if (stockKind === 'dc_stock' && dcCheck !== undefined) {
          const checked = dcCheck.status(row.dc);
          const status = typeof checked === 'string' ? checked : await checked;
          if (status !== 'active') {
            reject(line, {
              field: 'distribution_centre_code',
              reason: dcRejection(status),
              value: showValue(row.dc),
            });
            continue;
          }
        }
        rowsAccepted++;
        if (row.clamped) clamped++;
        if (options.stage !== undefined) {
          staged ??= options.stage();
          staged.put(
            stockKind === 'dc_stock' ? 'dc' : 'factory',
            row.dc,
            row.sku,
            row.quantity,
            line,
          );
          continue;
        }
        const previous = stock.put(row.dc, row.sku, row.quantity, line);
        if (previous !== undefined) {
          dupRows++;
          const shown = stockKind === 'dc_stock' ? `dc:${row.dc}:${row.sku}` : `factory:${row.sku}`;
          let lines = dupLines.get(shown);
          if (lines === undefined) {
            if (dupLines.size < MAX_DUPLICATE_KEYS_LISTED) {
              lines = [previous];
              dupLines.set(shown, lines);
            } else dupKeysOmitted++;
          }
          if (lines !== undefined && lines.length < MAX_LINES_PER_DUPLICATE) lines.push(line);
        }
      }
      staged?.flush();
    }
  } catch (err) {
    if (err instanceof FileFormatError) {
      const reason = tap.bytes === 0 ? 'empty file' : err.message;
      return {
        ok: false,
        format,
        positions,
        kind,
        reason,
        rowsRead,
        hash: undefined,
        ...badSoFar(),
      };
    }
    staged?.discard();
    throw err;
  }

  const hash = tap.digest();
  const unreadable = (reason: string): UnreadableFile => ({
    ok: false,
    format,
    positions,
    kind,
    reason,
    rowsRead,
    hash,
    ...badSoFar(),
  });
  if (tap.bytes === 0) return unreadable('empty file');
  if (kind === undefined) {
    if (format === 'xlsx')
      return unreadable('no header row (the first worksheet holds only blank rows)');
    if (!objects) return unreadable('no header row (the file holds only blank lines)');
    return unreadable(rowsRead === 0 ? 'no data rows' : 'no row names a kind');
  }
  if (rowsRead === 0) {
    return unreadable('no data rows');
  }
  const duplicates =
    staged === undefined
      ? {
          rows: dupRows,
          keys: [...dupLines].map(([key, lines]) => ({ key, lines })),
          keysOmitted: dupKeysOmitted,
        }
      : stagedDuplicates(staged);
  return {
    ok: true,
    format,
    positions,
    kind,
    rowsRead,
    rowsAccepted,
    rowsRejected,
    rejected,
    rejectedOmitted: rowsRejected - rejected.length,
    ignoredColumns: [...ignored].sort(),
    stock,
    ...(staged === undefined ? {} : { staged }),
    confirmations,
    duplicates,
    dcChecked: dcs !== undefined,
    hash,
    clamped,
    ...(dialect === undefined ? {} : { dialect }),
    ...(headerRow === undefined ? {} : { headerRow }),
  };
}

function stagedDuplicates(staged: StagingFile): CollectedFile['duplicates'] {
  const d = staged.duplicates(MAX_DUPLICATE_KEYS_LISTED, MAX_LINES_PER_DUPLICATE);
  return {
    rows: d.rows,
    keys: d.keys.map((k) => ({
      key: k.kind === 'dc' ? `dc:${k.dc}:${k.sku}` : `factory:${k.sku}`,
      lines: k.lines,
    })),
    keysOmitted: d.keysOmitted,
  };
}
