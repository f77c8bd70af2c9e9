import { copyFileSync, readdirSync, readFileSync, renameSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from './daemonHarness.ts';
import { waitUntil } from './sandbox.ts';

/**
 * What the tests of real exports and real workbooks share (test/fixtures/real/): the shipped
 * profiles of examples/profiles/, files copied byte for byte into inbox/, their reports, and the
 * portal's values waited for.
 */

export const REAL_FILES = new URL('../fixtures/real/', import.meta.url);
export const EXAMPLE_PROFILES = new URL('../../examples/profiles/', import.meta.url);

/** The profiles of these examples/profiles/ files (names without `.json`), in that order. */
export function exampleProfiles(names: readonly string[]): unknown[] {
  return names.flatMap(
    (name) =>
      (
        JSON.parse(readFileSync(new URL(`${name}.json`, EXAMPLE_PROFILES), 'utf8')) as {
          profiles: unknown[];
        }
      ).profiles,
  );
}

/**
 * Copies files of `from` byte for byte into the harness's inbox/, each under a temporary name,
 * then renamed; with `mtime`, dated then (a daemon whose clock was moved reads them as new).
 */
export function dropCopies(h: Harness, from: URL, names: readonly string[], mtime?: Date): void {
  for (const name of names) {
    const temp = join(h.box.dataDir, 'inbox', `.${name}.tmp`);
    copyFileSync(new URL(name, from), temp);
    if (mtime) utimesSync(temp, mtime, mtime);
    renameSync(temp, join(h.box.dataDir, 'inbox', name));
  }
}

/** The report of a file once it is in processed/ (or `folder`). */
export async function reportOf(
  h: Harness,
  name: string,
  folder: 'processed' | 'failed' | 'held' = 'processed',
): Promise<Record<string, unknown>> {
  const dir = join(h.box.dataDir, folder);
  const file = await waitUntil(
    () => readdirSync(dir).find((f) => f.endsWith(`-${name}.report.json`)),
    { timeoutMs: 20_000, message: `the report of ${name} in ${folder}/` },
  );
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
}

/** One value the portal must hold: how to read it, the value, and what it is (for the message). */
export type Expected = readonly [() => number | undefined, number, string];

/** Waits until the portal holds every expected value. */
export async function portalHolds(expected: readonly Expected[]): Promise<void> {
  await waitUntil(() => expected.every(([get, q]) => get() === q), {
    timeoutMs: 20_000,
    message: `the portal to hold ${expected.map(([, q, k]) => `${k}=${q}`).join(', ')}`,
  });
}

/** The portal's factory stock of a SKU, and its stock of a SKU at a centre. */
export function portalReads(h: Harness): {
  factory: (sku: string) => number | undefined;
  dc: (code: string, sku: string) => number | undefined;
} {
  return {
    factory: (sku) => h.sim.store.factoryStock(sku)?.stock_quantity,
    dc: (code, sku) => h.sim.store.dcStock(code, sku)?.stock_quantity,
  };
}

/** Factory values to wait for, from `{ sku: quantity }`. */
export function factoryValues(
  h: Harness,
  values: Readonly<Record<string, number>>,
): readonly Expected[] {
  const { factory } = portalReads(h);
  return Object.entries(values).map(([sku, q]) => [() => factory(sku), q, sku] as const);
}
