/**
 * Profile suggestion benchmark (not a test): how often `plan FILE --suggest-profile` names the
 * right SKU and quantity columns, on every real file of test/fixtures/real/ and the layouts of
 * test/inventory/exportProfiles.test.ts (bench/lib/suggestCases.ts: each with the columns its
 * profile reads, and whether it was held out while the inference was built).
 *
 *   node bench/suggest.ts [--extra DIR] [--json]
 *
 * Two figures per file set: the inference alone (the exports the project ships profiles for not
 * recognised: what a file of an unknown system gets) and the suggestion as printed (known
 * exports recognised by their headers, their shipped profile printed). A case's file is looked
 * for in test/fixtures/real/, then in `--extra DIR`; a case whose file is in neither is listed as
 * missing and counted nowhere.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileHead } from '../src/inventory/parse/head/readHead.ts';
import { normalizeColumn } from '../src/inventory/parse/header.ts';
import { formatOf } from '../src/inventory/parse/records.ts';
import { inferProfile } from '../src/inventory/suggest/inferProfile.ts';
import type { ProfileDraft } from '../src/inventory/suggest/profileDraft.ts';
import { suggestProfile } from '../src/inventory/suggest/suggestProfile.ts';
import { benchArgs } from './lib/args.ts';
import { emitResult, peakRssMiB } from './lib/result.ts';
import { type CaseColumn, SUGGEST_CASES, type SuggestCase } from './lib/suggestCases.ts';

const started = performance.now();
const args = benchArgs({ extra: { type: 'string' } });
const extra = args.values.extra as string | undefined;
const fixtures = join(import.meta.dirname, '../test/fixtures/real');
const scratch = mkdtempSync(join(tmpdir(), 'bench-suggest-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

/** The file of a case, or undefined when it is not on this checkout. */
function fileOf(c: SuggestCase): string | undefined {
  if ('text' in c.source) {
    const path = join(scratch, c.name);
    writeFileSync(path, c.source.text);
    return path;
  }
  if ('project' in c.source) return join(import.meta.dirname, '..', c.source.project);
  for (const dir of [fixtures, extra]) {
    if (dir !== undefined && existsSync(join(dir, c.source.fixture))) {
      return join(dir, c.source.fixture);
    }
  }
  return undefined;
}

/** The column a profile names, as a case names columns (a name, folded; or a position). */
function named(ref: unknown): string | undefined {
  if (typeof ref === 'number') return String(ref);
  if (typeof ref === 'string') return normalizeColumn(ref);
  if (ref !== null && typeof ref === 'object' && 'name' in ref) {
    return normalizeColumn(String((ref as { name: unknown }).name));
  }
  return undefined;
}
const asCase = (c: CaseColumn) => (typeof c === 'number' ? String(c) : normalizeColumn(c));

interface Outcome {
  readonly sku: string | undefined;
  readonly quantity: readonly string[];
  readonly skuRight: boolean;
  readonly quantityRight: boolean;
}

function judge(
  c: SuggestCase,
  profile: ProfileDraft | Record<string, unknown> | undefined,
): Outcome {
  const p = (profile ?? {}) as { columns?: Record<string, unknown>; spread?: object };
  const sku = named(p.columns?.sku);
  const quantity =
    p.spread !== undefined && Object.keys(p.spread).length > 0
      ? Object.keys(p.spread).map(normalizeColumn)
      : [named(p.columns?.stock_quantity)].filter((q): q is string => q !== undefined);
  const want = (Array.isArray(c.quantity) ? c.quantity : [c.quantity]).map(asCase);
  return {
    sku,
    quantity,
    skuRight: sku === asCase(c.sku),
    quantityRight: quantity.length === want.length && want.every((q) => quantity.includes(q)),
  };
}

interface Row {
  readonly name: string;
  readonly heldOut: boolean;
  readonly inferred: Outcome;
  readonly printed: Outcome;
}

const rows: Row[] = [];
const missing: string[] = [];
for (const c of SUGGEST_CASES) {
  const path = fileOf(c);
  if (path === undefined) {
    missing.push(c.name);
    continue;
  }
  const head = await readFileHead(path, formatOf(c.name)!);
  const inferred = judge(c, inferProfile(head, c.name).profile);
  const suggestion = await suggestProfile(path, { fileName: c.name, maxSkuLength: 255 });
  rows.push({
    name: c.name,
    heldOut: c.heldOut,
    inferred,
    printed: judge(c, suggestion.profile ?? undefined),
  });
}

const right = (o: Outcome) => o.skuRight && o.quantityRight;
function tally(set: readonly Row[], pick: (r: Row) => Outcome) {
  const n = set.length;
  const both = set.filter((r) => right(pick(r))).length;
  return {
    files: n,
    right: both,
    sku: set.filter((r) => pick(r).skuRight).length,
    quantity: set.filter((r) => pick(r).quantityRight).length,
  };
}
const sets = {
  'held out': rows.filter((r) => r.heldOut),
  'built on': rows.filter((r) => !r.heldOut),
  all: rows,
};
const figures = Object.fromEntries(
  Object.entries(sets).map(([k, set]) => [
    k,
    { inferred: tally(set, (r) => r.inferred), printed: tally(set, (r) => r.printed) },
  ]),
);

const mark = (o: Outcome) =>
  right(o) ? 'right' : `WRONG (sku ${o.sku ?? '—'}, quantity ${o.quantity.join(' + ') || '—'})`;
console.log('| file | held out | inference alone | as printed |');
console.log('| --- | --- | --- | --- |');
for (const r of rows) {
  console.log(
    `| ${r.name} | ${r.heldOut ? 'yes' : ''} | ${mark(r.inferred)} | ${mark(r.printed)} |`,
  );
}
console.log('');
const pct = (t: { files: number; right: number }) =>
  t.files === 0 ? '—' : `${t.right}/${t.files} (${Math.round((100 * t.right) / t.files)} %)`;
for (const [k, f] of Object.entries(figures)) {
  console.log(
    `${k.padEnd(9)}: inference alone ${pct(f.inferred)} (SKU ${f.inferred.sku}, quantity ${f.inferred.quantity}); as printed ${pct(f.printed)}`,
  );
}
if (missing.length > 0)
  console.log(`not on this checkout (give --extra DIR): ${missing.join(', ')}`);

if (args.json) {
  const h = figures['held out']!;
  emitResult({
    name: 'suggest',
    wallS: (performance.now() - started) / 1000,
    peakRssMiB: peakRssMiB(),
    rows: [
      {
        measure: `SKU and quantity right, held-out files (${h.inferred.files})`,
        result: pct(h.inferred),
        reference: 'at least 4 in 5',
        ratio: h.inferred.files === 0 ? '—' : (h.inferred.right / h.inferred.files).toFixed(2),
      },
      {
        measure: `SKU and quantity right, all files (${figures.all!.inferred.files})`,
        result: pct(figures.all!.inferred),
        reference: `as printed ${pct(figures.all!.printed)}`,
        ratio: '',
      },
    ],
    data: { figures, rows, missing },
  });
}
