import type { DataPaths } from '../../config/dataPaths.ts';
import { fitName } from './inboxNames.ts';

/**
 * Where a handled inbox file goes and under which name: processed/, failed/ or held/ by its
 * outcome, named `<received stamp>-<ledger id>-<original name>`, its report beside it.
 */

export type ReportOutcome = 'processed' | 'failed' | 'duplicate' | 'held';

/** The folder a handled file goes to by its outcome. */
export function folderFor(paths: DataPaths, outcome: ReportOutcome): string {
  if (outcome === 'failed') return paths.failed;
  if (outcome === 'held') return paths.held;
  return paths.processed;
}

/** `20261122T014501Z` for a time in epoch milliseconds. */
export function compactStamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * The longest stored name, in bytes. File names are limited to 255 bytes (NAME_MAX), and the
 * longest name made from a stored one is the report's temp file,
 * `.<stored>.report.json.<8 hex>.tmp`: 26 bytes more.
 */
export const MAX_STORED_NAME_BYTES = 255 - 26;

/**
 * The name a handled file is stored under: unique by the ledger id, readable by time. An
 * original name too long to fit behind the prefix has its stem cut short (whole characters, never
 * half a UTF-8 sequence), `~` marking the cut, its extension kept; the report keeps the original
 * name in `file`.
 */
export function storedName(receivedAt: number, ledgerId: number, name: string): string {
  const prefix = `${compactStamp(receivedAt)}-${ledgerId}-`;
  const room = MAX_STORED_NAME_BYTES - Buffer.byteLength(prefix);
  return `${prefix}${fitName(name, room)}`;
}

/**
 * What a stored name (or its report's name) says: when the file was received and its ledger id;
 * undefined for any other name (one the daemon did not write).
 */
export function parseStoredName(
  name: string,
): { readonly receivedAt: number; readonly ledgerId: number } | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z-(\d+)-./.exec(name);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const receivedAt = Date.UTC(y, mo - 1, d, h, mi, se);
  return Number.isNaN(receivedAt) ? undefined : { receivedAt, ledgerId: Number(m[7]) };
}

/** The report's path beside a stored file. */
export function reportPathFor(storedPath: string): string {
  return `${storedPath}.report.json`;
}
