import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Simulator } from '../../src/simulator/index.ts';
import { factoryCsv, seededSku } from './daemonHarness.ts';
import { waitUntil } from './sandbox.ts';

/** A stock file to drop: its name and its factory rows. */
export type StockFile = { name: string; rows: ReadonlyArray<readonly [string, number]> };

/** What the convergence helpers need of a harness (in-process or a child process). */
interface HasInbox {
  readonly box: { readonly dataDir: string };
  readonly sim: Simulator;
  drop(name: string, content: string, mtime?: Date): void;
}

/** Files of factory stock, each setting 60 SKUs; later files overwrite some earlier SKUs. */
export function stockFiles(count: number, base: number): StockFile[] {
  return Array.from({ length: count }, (_, f) => ({
    name: `stock-${String(f).padStart(2, '0')}.csv`,
    rows: Array.from(
      { length: 60 },
      (_, i) => [seededSku(f * 40 + i), base + f * 1000 + i] as const,
    ),
  }));
}

/** Modification times a second apart, ending now: the last is the newest. */
export function mtimesInOrder(count: number): Date[] {
  const start = Date.now() - count * 1000;
  return Array.from({ length: count }, (_, i) => new Date(start + i * 1000));
}

/** Drops the files with modification times a second apart, in order: the last is the newest. */
export function dropInOrder(h: HasInbox, files: readonly StockFile[]): void {
  const mtimes = mtimesInOrder(files.length);
  for (const [i, f] of files.entries()) h.drop(f.name, factoryCsv(f.rows), mtimes[i]);
}

/** What the portal should hold after all files: the newest file wins. */
export function expected(files: readonly StockFile[]): Map<string, number> {
  const want = new Map<string, number>();
  for (const f of files) for (const [s, q] of f.rows) want.set(s, q);
  return want;
}

export const converged = (h: HasInbox, want: Map<string, number>): boolean =>
  [...want].every(([s, q]) => h.sim.store.factoryStock(s)?.stock_quantity === q);

/**
 * The portal converges as soon as the newest file is pushed; an older file whose job was lost
 * with the queues (or with a killed daemon) is still in inbox/ until the next scan offers it.
 */
export async function waitForEmptyInbox(h: HasInbox): Promise<void> {
  await waitUntil(
    () => readdirSync(join(h.box.dataDir, 'inbox')).filter((n) => !n.startsWith('.')).length === 0,
    { timeoutMs: 20_000, message: 'an empty inbox' },
  );
}

/** inbox/ is empty and each named file is in processed/ or failed/ exactly once. */
export function expectEachFileDoneOnce(h: HasInbox, names: readonly string[]): void {
  const dir = h.box.dataDir;
  const inbox = readdirSync(join(dir, 'inbox')).filter((n) => !n.startsWith('.'));
  const done = [...readdirSync(join(dir, 'processed')), ...readdirSync(join(dir, 'failed'))].filter(
    (n) => !n.endsWith('.report.json'),
  );
  expect(inbox).toEqual([]);
  for (const name of names)
    expect(
      done.filter((d) => d.endsWith(`-${name}`)),
      name,
    ).toHaveLength(1);
}
