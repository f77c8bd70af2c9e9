import { resolve } from 'node:path';
import { dataPaths } from '../config/dataPaths.ts';
import type { GuardReport } from '../inventory/index.ts';
import type { StateDb } from '../state/db.ts';
import { FileHistory, type FileOutcomeName, type FileRecord } from '../state/inbox/fileHistory.ts';
import { type HeldEntry, HeldStore } from '../state/inbox/heldStore.ts';
import { Catalogue, type CatalogueEntry } from '../state/products/catalogueStore.ts';
import { ConfirmationSends } from '../state/shipments/confirmationSends.ts';
import { StockFailures } from '../state/stock/stockFailures.ts';
import { type Assessment, reasonText } from './assess.ts';
import type { QueueDepths, Status } from './status.ts';

/**
 * What the commands print with `--json`, and what the console serves under `/api/`: one function
 * per shape, so that a command and the console can never disagree.
 */

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Names of fields that hold an instant: `at`, `since`, `…At`, `…Since`. */
type InstantKey = 'at' | 'since' | `${string}At` | `${string}Since`;
const INSTANT_KEY = /^(at|since)$|At$|Since$/;

/** `T` with every instant (epoch ms under an InstantKey) as an ISO 8601 string. */
export type IsoTimes<T> = T extends readonly (infer U)[]
  ? IsoTimes<U>[]
  : T extends object
    ? {
        [K in keyof T]: K extends InstantKey
          ? T[K] extends number
            ? string
            : T[K] extends number | null | undefined
              ? string | Exclude<T[K], number>
              : IsoTimes<T[K]>
          : IsoTimes<T[K]>;
      }
    : T;

/**
 * Plain data as `--json` prints it: every instant (an epoch-ms number under a field named `at`,
 * `since`, `…At` or `…Since`, at any depth) as ISO 8601 in UTC; 0 (never set) as null. Every
 * command's JSON and the console's `/api/` give times one way.
 */
export function isoTimes<T>(value: T): IsoTimes<T> {
  const walk = (v: unknown, key: string | undefined): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, undefined));
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    }
    if (typeof v === 'number' && key !== undefined && INSTANT_KEY.test(key)) {
      return v === 0 ? null : new Date(v).toISOString();
    }
    return v;
  };
  return walk(value, undefined) as IsoTimes<T>;
}

/**
 * `status --json` (and `/api/status`): the verdict and its reasons (in the words of `status`),
 * the status read, the queues, the ETA.
 */
export function statusView(
  s: Status & { readonly queues: QueueDepths | { readonly error: string } },
  health: Assessment,
) {
  return isoTimes({
    health: { verdict: health.verdict, reasons: health.reasons.map(reasonText) },
    ...s,
  });
}

/** `health --json` (and `/healthz`'s body): the health report, its time as ISO 8601. */
export function healthView<T extends object>(report: T): IsoTimes<T> {
  return isoTimes(report);
}

/** What `held --json` prints for one held entry. */
export function heldView(entry: HeldEntry) {
  const report = JSON.parse(entry.report) as Partial<GuardReport> & {
    catalogue?: { wouldCreate: number; max: number };
  };
  return {
    id: entry.id,
    source: entry.source,
    file: entry.name,
    kind: entry.kind,
    storedAs: entry.storedAs,
    reason: entry.reason,
    heldAt: new Date(entry.heldAt).toISOString(),
    tripped: report.tripped ?? [],
    figures: report.figures ?? null,
    thresholds: report.thresholds ?? null,
    examples: report.examples ?? [],
    /** A products file held by CATALOGUE_MAX_NEW: how many it would create, and the limit. */
    catalogue: report.catalogue ?? null,
  };
}

export type HeldView = ReturnType<typeof heldView>;

/** `held --json` (and `/api/held`): what the guard rails hold now, oldest first. */
export function heldList(db: StateDb): HeldView[] {
  return new HeldStore(db).open().map(heldView);
}

/** `failures --json` (and `/api/failures`): rejected stock items and refused confirmations. */
export function failuresView(db: StateDb) {
  return isoTimes({
    // A factory key has no centre: null, as `explain --json` says it ('' in state.db).
    stock: new StockFailures(db).list().map((f) => ({ ...f, dc: f.dc === '' ? null : f.dc })),
    confirmations: new ConfirmationSends(db).failures(),
  });
}

/** One line of `files --json` (and `/api/files`). */
export interface FileView {
  /** The ledger id (`/api/files/ID` serves its report). */
  readonly id: number;
  readonly file: string;
  readonly storedAs: string | null;
  readonly kind: string | null;
  readonly outcome: FileOutcomeName;
  readonly reason: string | null;
  readonly receivedAt: string;
  readonly finishedAt: string | null;
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  /** Where its report is (`<stored name>.report.json`); null while none is there. */
  readonly reportPath: string | null;
  /** While the guard rails hold it: the id `release` and `reject` take; null otherwise. */
  readonly heldId: number | null;
}

/** The folder a file's report is in by its outcome; none for a released or unfinished one. */
function reportFolder(outcome: FileOutcomeName): 'processed' | 'failed' | 'held' | null {
  if (outcome === 'processed' || outcome === 'duplicate') return 'processed';
  if (outcome === 'failed' || outcome === 'rejected') return 'failed';
  if (outcome === 'held') return 'held';
  return null;
}

export function fileView(
  r: FileRecord,
  dataDir: string,
  heldIds: ReadonlyMap<number, number>,
): FileView {
  const folder = reportFolder(r.outcome);
  return {
    id: r.id,
    file: r.name,
    storedAs: r.storedAs,
    kind: r.kind,
    outcome: r.outcome,
    reason: r.reason,
    receivedAt: new Date(r.receivedAt).toISOString(),
    finishedAt: iso(r.finishedAt),
    rowsRead: r.rowsRead,
    rowsAccepted: r.rowsAccepted,
    rowsRejected: r.rowsRejected,
    reportPath:
      folder === null || r.storedAs === null
        ? null
        : resolve(dataPaths(dataDir)[folder], `${r.storedAs}.report.json`),
    heldId: r.outcome === 'held' ? (heldIds.get(r.id) ?? null) : null,
  };
}

/** Held files by ledger id → held id. */
function heldIdsByFile(db: StateDb): Map<number, number> {
  return new Map(
    new HeldStore(db)
      .open()
      .filter((e) => e.fileId !== null)
      .map((e) => [e.fileId!, e.id]),
  );
}

/** `files --json` (and `/api/files`): the newest `limit` files, newest first. */
export function filesList(db: StateDb, dataDir: string, limit: number): FileView[] {
  const held = heldIdsByFile(db);
  return new FileHistory(db).recent(limit).map((r) => fileView(r, dataDir, held));
}

/** One file with its stored report (parsed); undefined when the ledger has no such id. */
export function fileWithReport(db: StateDb, dataDir: string, id: number) {
  const r = new FileHistory(db).get(id);
  if (r === undefined) return undefined;
  return {
    ...fileView(r, dataDir, heldIdsByFile(db)),
    report: r.report === null ? null : (JSON.parse(r.report) as Record<string, unknown>),
  };
}

/** The most `files` lists at once. */
export const MAX_FILES_LISTED = 1000;

/** The platform statuses a product has (the spec's values); `products --status` takes one. */
export const PLATFORM_STATUSES = ['pending', 'active', 'inactive', 'declined'] as const;

/** One product of `products --json` (and `/api/products`). */
export function productView(p: CatalogueEntry) {
  return {
    sku: p.sku,
    platformSku: p.platformSku,
    name: p.name,
    status: p.status,
    platformStatus: p.platformStatus,
    declinedReason: p.declinedReason,
    /** When the daemon created it; null for a product it did not create. */
    createdAt: iso(p.createdAt),
    /** The original name of the inbox file that created it; null when the daemon did not. */
    createdBy: p.createdBy,
    /** That file's ledger id (`files`, `/api/files/ID`); null as above. */
    fileId: p.createdFileId,
    /** When its statuses were last read from the portal; null: only its creation's answer. */
    statusAt: iso(p.statusAt),
  };
}

export type ProductView = ReturnType<typeof productView>;

/**
 * `products --json` (and `/api/products`): the products the daemon created (`all`: every product
 * it knows of the portal's), newest first, of one platform status when `status` is given; at most
 * `limit` (none: all).
 */
export function productsList(
  db: StateDb,
  options: { readonly all?: boolean; readonly status?: string; readonly limit?: number } = {},
): ProductView[] {
  return new Catalogue(db)
    .list({
      ...(options.all ? { all: true } : {}),
      ...(options.status === undefined ? {} : { platformStatus: options.status }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    })
    .map(productView);
}
