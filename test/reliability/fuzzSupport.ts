/**
 * Shared by the reliability tests: the run's seed and size (RELIABILITY_SEED,
 * RELIABILITY_HEAVY=1), and the checks every handled inbox file must pass.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { expect } from 'vitest';
import {
  FileChangedError,
  type FileOutcome,
  type IngestDeps,
} from '../../src/inventory/ingest/process.ts';
import type { FileReport } from '../../src/inventory/ingest/report.ts';
import { DcListUnavailableError } from '../../src/inventory/validate/dcDirectory.ts';
import type { IngestEnv } from '../inventory/helpers.ts';

export const HEAVY = process.env.RELIABILITY_HEAVY === '1';

/** The fixed default seed; RELIABILITY_SEED=N replays another run. */
export const SEED = (() => {
  const given = process.env.RELIABILITY_SEED;
  if (given === undefined || given === '') return 20_261_122;
  const n = Number(given);
  if (!Number.isSafeInteger(n))
    throw new Error(`RELIABILITY_SEED must be an integer; got ${given}`);
  return n;
})();

/** Cases for one property: the light count in `npm test`, the heavy one with RELIABILITY_HEAVY=1. */
export const runs = (light: number, heavy: number): number => (HEAVY ? heavy : light);

/** Largest report accepted, whatever the input (1,000 rejected rows of 100 characters fit). */
export const MAX_REPORT_BYTES = 512 * 1024;

/** What one processInboxFile call left behind, checked. */
export interface Landed {
  readonly outcome: FileOutcome;
  readonly report: FileReport;
}

/**
 * Processes `name` from inbox/ and checks the contract: no unexpected throw (a documented
 * retryable error leaves the file in inbox/ and is returned as `retry`), the file is no longer
 * in inbox/, exactly one stored copy and its report appeared in exactly one of processed/ and
 * failed/, and the report is parseable, bounded and consistent.
 */
export async function processAndCheck(
  env: IngestEnv,
  name: string,
  known: Set<string>,
  extra: Partial<IngestDeps> = {},
): Promise<Landed | 'retry'> {
  let outcome: FileOutcome;
  try {
    outcome = await env.process(name, extra);
  } catch (err) {
    if (err instanceof FileChangedError || err instanceof DcListUnavailableError) {
      expect(env.list('inbox')).toContain(name);
      return 'retry';
    }
    throw new Error(`processInboxFile threw an undocumented error for ${JSON.stringify(name)}`, {
      cause: err,
    });
  }
  expect(['processed', 'failed', 'duplicate']).toContain(outcome.status);
  expect(env.list('inbox')).not.toContain(name);

  const added = [
    ...readdirSync(env.paths.processed).map((n) => `processed/${n}`),
    ...readdirSync(env.paths.failed).map((n) => `failed/${n}`),
  ].filter((n) => !known.has(n));
  for (const n of added) known.add(n);
  const folder = outcome.status === 'failed' ? 'failed' : 'processed';
  const stored = basename(outcome.destination!);
  expect(added.sort()).toEqual([`${folder}/${stored}`, `${folder}/${stored}.report.json`].sort());
  expect(basename(dirname(outcome.destination!))).toBe(folder);

  const size = statSync(outcome.reportPath!).size;
  expect(size).toBeLessThanOrEqual(MAX_REPORT_BYTES);
  const report = JSON.parse(readFileSync(outcome.reportPath!, 'utf8')) as FileReport;
  expect(report.file).toBe(name);
  expect(report.outcome).toBe(outcome.status);
  expect(report.storedAs).toBe(stored);
  if (report.outcome === 'failed') {
    // Refused whole: nothing accepted; the rows bad on their own are named, and rows read
    // before the file was refused (say, an unclosed quote near the end) are counted as read.
    expect(report.rowsAccepted).toBe(0);
    expect(report.rowsRejected).toBeLessThanOrEqual(report.rowsRead);
  } else {
    expect(report.rowsRead).toBe(report.rowsAccepted + report.rowsRejected);
  }
  expect(report.rejected.length + report.rejectedOmitted).toBe(report.rowsRejected);
  expect(report.rejected.length).toBeLessThanOrEqual(1000);
  if (report.outcome === 'failed') expect(report.reason).toMatch(/\S/);
  return { outcome, report };
}

/** Every entry already in processed/ and failed/ (to tell what one call added). */
export function storedEntries(env: IngestEnv): Set<string> {
  return new Set([
    ...readdirSync(env.paths.processed).map((n) => `processed/${n}`),
    ...readdirSync(env.paths.failed).map((n) => `failed/${n}`),
  ]);
}

/** The desired stock rows one ledger entry (one file) wrote, as `dc\0sku` → quantity. */
export function desiredFrom(env: IngestEnv, ledgerId: number): Map<string, number> {
  const rows = env.db
    .prepare('SELECT dc, sku, quantity FROM desired_stock WHERE source = ?')
    .all(`file:${ledgerId}`) as Array<{ dc: string; sku: string; quantity: number }>;
  return new Map(rows.map((r) => [`${r.dc}\u0000${r.sku}`, r.quantity]));
}

export const inboxPath = (env: IngestEnv, name: string) => join(env.paths.inbox, name);
