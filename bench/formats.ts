/**
 * Formats benchmark (not a test): ingesting a large ERP export through the whole inbox pipeline
 * (processInboxFile: hash, read with its profile, validate, apply to a real state.db, report,
 * move), against the plain CSV path: time and peak RSS of each.
 *
 *   node bench/formats.ts [--rows 1000000] [--only csv,delimited,xlsx,lots,jsonl,json] [--where]
 *                         [--quick | --scale S] [--json]
 *
 * - csv: `sku,stock_quantity` UTF-8 with commas and no profile (the plain path), the reference;
 * - delimited: the same rows as a semicolon Windows-1252 export with a title line and German
 *   column names, read with a profile (headerLine 2, columns mapped, decimal comma; encoding and
 *   delimiter detected, decoded in the stream);
 * - xlsx: the same rows in one worksheet written by exceljs's streaming writer (shared strings:
 *   every SKU is a distinct string), read with a profile mapping its columns;
 * - lots: the same number of rows as stock per lot, five lots a SKU (rows / 5 keys, each SKU's
 *   lots together, as an ERP sorts them), read with `duplicates: "sum"`;
 * - jsonl, json: the same rows as JSON Lines (an object a line) and as one JSON array of objects;
 * - columns: a wider export (`Code,Name,Variant,Qty,Type`) read with plain column names (sku from
 *   Code), the floor of
 * - expr: the same bytes read with two expressions, a composite key (`Name + '-' + Variant`) and
 *   a condition (`Type != 'Inventory'` → skip): its ratio to `columns` is the contract's bound
 *   (at most 1.5×).
 *
 * Each ingest's event loop is watched (bench/lib/loopBlocks.ts): its longest block and p99, and
 * with `--where` the code that ran in its longest blocks.
 *
 * Each file is written by one child process and ingested by another (its own data dir and
 * state.db), so that each peak RSS (maxRSS of the ingesting process) is its own. The temp dir is
 * removed afterwards, also on Ctrl-C.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { DAEMON_NODE_ENV, DAEMON_NODE_FLAGS } from '../src/cli/nodeFlags.ts';
import { ensureDataDirs } from '../src/config/dataPaths.ts';
import { profilesFileSchema } from '../src/config/profiles.ts';
import { processInboxFile } from '../src/inventory/ingest/process.ts';
import { createDcDirectory } from '../src/inventory/validate/dcDirectory.ts';
import { createLogger } from '../src/log/logger.ts';
import { openStateDb } from '../src/state/db.ts';
import { benchArgs, sized } from './lib/args.ts';
import { onCleanup } from './lib/cleanup.ts';
import { type LoopFigures, watchLoop } from './lib/loopBlocks.ts';
import { emitResult, fmtInt, fmtRatio, peakRssMiB } from './lib/result.ts';

const FORMATS = ['csv', 'delimited', 'xlsx', 'lots', 'jsonl', 'json', 'columns', 'expr'] as const;
type Format = (typeof FORMATS)[number];
const FILE: Record<Format, string> = {
  csv: 'stock.csv',
  delimited: 'LAGER.TXT',
  xlsx: 'stock.xlsx',
  lots: 'lots.csv',
  jsonl: 'stock.jsonl',
  json: 'stock.json',
  columns: 'variants-columns.csv',
  expr: 'variants-expr.csv',
};
/** The profiles an ERP would set up for these exports (the plain CSV needs none). */
const PROFILES = profilesFileSchema.parse({
  profiles: [
    {
      match: 'LAGER*.TXT',
      headerLine: 2,
      decimal: ',',
      columns: { sku: 'Artikelnr', stock_quantity: 'Menge' },
    },
    { match: '*.xlsx', columns: { sku: 'Item', stock_quantity: 'Qty' } },
    { match: 'lots*.csv', duplicates: 'sum' },
    { match: 'variants-columns.csv', columns: { sku: 'Code', stock_quantity: 'Qty' } },
    {
      match: 'variants-expr.csv',
      columns: { sku: { expr: "row['Name'] + '-' + row['Variant']" }, stock_quantity: 'Qty' },
      // biome-ignore lint/suspicious/noThenProperty: the contract names the field `then`
      when: [{ if: "row['Type'] != 'Inventory'", then: 'skip' }],
    },
  ],
}).profiles;
const CHILD_MARKER = 'FORMAT_CHILD ';

const started = performance.now();
const args = benchArgs({
  rows: { type: 'string' },
  only: { type: 'string' },
  write: { type: 'string' },
  read: { type: 'string' },
  dir: { type: 'string' },
  where: { type: 'boolean', default: false },
});
const values = args.values;
const rows = sized(values.rows, 1_000_000, args.scale);
/** Lots a SKU in the lots file. */
const LOTS = 5;
const sku = (i: number) => `SKU-${String(i).padStart(7, '0')}`;
const qty = (i: number) => (i * 7919) % 10_000;

if (typeof values.write === 'string') {
  await write(values.write as Format, String(values.dir));
} else if (typeof values.read === 'string') {
  await read(values.read as Format, String(values.dir));
} else {
  await main();
}

/** The parent: writes and reads each format in child processes, prints the table. */
async function main(): Promise<void> {
  const selected = (
    typeof values.only === 'string' ? values.only.split(',') : [...FORMATS]
  ) as Format[];
  const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-bench-formats-'));
  const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  try {
    const results: Record<string, ChildResult> = {};
    for (const format of selected) {
      const written = child(['--write', format, '--dir', dir, '--rows', String(rows)]);
      const readResult = child([
        '--read',
        format,
        '--dir',
        dir,
        '--rows',
        String(rows),
        ...(values.where === true ? ['--where'] : []),
      ]);
      rmSync(join(dir, format), { recursive: true, force: true }); // its data dir
      results[format] = { ...readResult, writeS: written.writeS, bytes: written.bytes };
      console.log(
        `${format.padEnd(9)} ${(readResult.bytes / 1e6).toFixed(1).padStart(6)} MB  write ${written.writeS.toFixed(1)} s  ingest ${readResult.readS.toFixed(2)} s (CPU ${readResult.cpuS.toFixed(2)} s)  ${fmtInt(rows / readResult.readS)} rows/s  peak RSS ${readResult.peakRssMiB.toFixed(0)} MiB  longest loop block ${readResult.loopMaxMs.toFixed(0)} ms (p99 ${readResult.loopP99Ms.toFixed(0)})`,
      );
      for (const b of readResult.blocks) {
        console.log(`  block ${b.wallMs} ms (CPU ${b.cpuMs} ms) at ${b.atMs} ms`);
        for (const w of b.where ?? []) console.log(`    ${w}`);
      }
    }
    console.log(
      `node ${process.version}, ${availableParallelism()} CPUs, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
    );
    const csv = results.csv;
    if (args.json) {
      emitResult({
        name: 'formats',
        wallS: (performance.now() - started) / 1000,
        peakRssMiB: peakRssMiB(),
        rows: selected.map((format) => {
          const r = results[format]!;
          // Expressions are measured against the same bytes read with plain columns.
          const floor = format === 'expr' ? results.columns : undefined;
          if (floor !== undefined) {
            return {
              measure: `${fmtInt(rows)} rows ingested (processInboxFile): ${label(format)}`,
              result: `${r.readS.toFixed(2)} s (CPU ${r.cpuS.toFixed(2)} s), peak RSS ${r.peakRssMiB.toFixed(0)} MiB`,
              reference: `plain columns ${floor.readS.toFixed(2)} s (CPU ${floor.cpuS.toFixed(2)} s), ${floor.peakRssMiB.toFixed(0)} MiB`,
              ratio: `${fmtRatio(r.readS, floor.readS)} (CPU ${fmtRatio(r.cpuS, floor.cpuS)})`,
            };
          }
          return {
            measure: `${fmtInt(rows)} rows ingested (processInboxFile): ${label(format)}`,
            result: `${r.readS.toFixed(2)} s (CPU ${r.cpuS.toFixed(2)} s), peak RSS ${r.peakRssMiB.toFixed(0)} MiB; loop block ≤ ${r.loopMaxMs.toFixed(0)} ms`,
            reference: csv
              ? `plain CSV ${csv.readS.toFixed(2)} s, ${csv.peakRssMiB.toFixed(0)} MiB`
              : '–',
            ratio: csv ? fmtRatio(r.readS, csv.readS) : '–',
          };
        }),

        data: { rows, results },
      });
    }
  } finally {
    await removeDir();
  }
}

function label(format: Format): string {
  return {
    csv: 'plain CSV, UTF-8, commas, no profile',
    delimited: 'semicolon Windows-1252 export, title line, profile',
    xlsx: 'workbook, shared strings, profile',
    lots: 'lot rows (5 a SKU) summed per key, profile',
    jsonl: 'JSON Lines, an object a line, no profile',
    json: 'one JSON array of objects, no profile',
    columns: 'a wider export (5 columns), plain column names, profile',
    expr: 'the same, a composite key and a condition in CEL',
  }[format];
}

interface ChildResult {
  readonly readS: number;
  /**
   * CPU seconds the reading child spent ingesting (all its threads: the staging worker, zlib's):
   * steadier than the wall time on a machine shared with other work.
   */
  readonly cpuS: number;
  readonly writeS: number;
  readonly bytes: number;
  readonly rows: number;
  readonly peakRssMiB: number;
  /** The ingest's longest event-loop block and p99 (ms), and its longest blocks. */
  readonly loopMaxMs: number;
  readonly loopP99Ms: number;
  readonly blocks: LoopFigures['blocks'];
}

function child(extra: readonly string[]): ChildResult {
  // The daemon's flags for what is measured; not for writing the inputs (a million-row workbook
  // is built in memory by its writer, above the daemon's old-generation ceiling).
  const flags = extra[0] === '--write' ? [] : DAEMON_NODE_FLAGS;
  const r = spawnSync(process.execPath, [...flags, import.meta.filename, ...extra], {
    env: { ...process.env, ...(extra[0] === '--write' ? {} : DAEMON_NODE_ENV) },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith(CHILD_MARKER));
  if (r.status !== 0 || line === undefined)
    throw new Error(`child ${extra.join(' ')} failed: ${r.status} ${r.stdout}`);
  return JSON.parse(line.slice(CHILD_MARKER.length)) as ChildResult;
}

function report(result: Partial<ChildResult>): void {
  console.log(
    `${CHILD_MARKER}${JSON.stringify({ readS: 0, cpuS: 0, writeS: 0, bytes: 0, rows, peakRssMiB: peakRssMiB(), loopMaxMs: 0, loopP99Ms: 0, blocks: [], ...result })}`,
  );
}

async function write(format: Format, dir: string): Promise<void> {
  const path = join(dir, FILE[format]);
  const t = performance.now();
  if (format === 'xlsx') {
    // Loaded here only: the reading child must not carry exceljs (the daemon does not).
    const { default: ExcelJS } = await import('exceljs');
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
    const ws = wb.addWorksheet('Stock');
    ws.addRow(['Item', 'Qty']).commit();
    for (let i = 0; i < rows; i++) ws.addRow([sku(i), qty(i)]).commit();
    await wb.commit();
  } else {
    const out = createWriteStream(path);
    if (format === 'jsonl' || format === 'json') {
      const json = format === 'json';
      out.write(json ? '[\n' : '');
      for (let i = 0; i < rows; i += 10_000) {
        let text = '';
        for (let j = i; j < Math.min(rows, i + 10_000); j++) {
          text += `${json && j > 0 ? ',' : ''}{"sku":"${sku(j)}","stock_quantity":${qty(j)}}\n`;
        }
        if (!out.write(text)) await once(out, 'drain');
      }
      out.end(json ? ']\n' : '');
      await once(out, 'finish');
      report({ writeS: (performance.now() - t) / 1000, bytes: statSync(path).size });
      return;
    }
    const delimited = format === 'delimited';
    // Five lots a SKU: quantities 1..5 for lot 0..4, so a key sums to 15.
    const row = (j: number) =>
      format === 'lots' ? `${sku(Math.floor(j / LOTS))},${(j % LOTS) + 1}` : undefined;
    const sep = delimited ? ';' : ',';
    const wide = format === 'columns' || format === 'expr';
    // Name + '-' + Variant is the Code: both readings give the same keys.
    const variant = (j: number) =>
      `${sku(Math.floor(j / 4))}-${'SMLX'[j % 4]},${sku(Math.floor(j / 4))},${'SMLX'[j % 4]},${qty(j)},Inventory`;
    const head = delimited
      ? 'Lagerbestand zum 01.05.2024 - Größe in Stück\r\nArtikelnr;Menge\r\n'
      : wide
        ? 'Code,Name,Variant,Qty,Type\n'
        : 'sku,stock_quantity\n';
    out.write(Buffer.from(head, delimited ? 'latin1' : 'utf8'));
    const eol = delimited ? '\r\n' : '\n';
    for (let i = 0; i < rows; i += 10_000) {
      let text = '';
      for (let j = i; j < Math.min(rows, i + 10_000); j++)
        text += `${wide ? variant(j) : (row(j) ?? `${sku(j)}${sep}${qty(j)}`)}${eol}`;
      if (!out.write(Buffer.from(text, delimited ? 'latin1' : 'utf8'))) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  }
  report({ writeS: (performance.now() - t) / 1000, bytes: statSync(path).size });
}

async function read(format: Format, dir: string): Promise<void> {
  const dataDir = join(dir, format);
  mkdirSync(dataDir, { recursive: true });
  const paths = await ensureDataDirs(dataDir);
  const file = join(paths.inbox, FILE[format]);
  renameSync(join(dir, FILE[format]), file);
  const bytes = statSync(file).size;
  const db = openStateDb(paths.stateDb);
  const loop = await watchLoop({ where: values.where === true });
  const t = performance.now();
  const cpuBefore = process.cpuUsage();
  const outcome = await processInboxFile(file, {
    db,
    log: createLogger({ level: 'warn', pretty: false }),
    dataDir,
    dcDirectory: createDcDirectory({ db }),
    maxSkuLength: 64,
    profiles: () => PROFILES,
  });
  const readS = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const figures = await loop.stop();
  if (format === 'lots') {
    const keys = db
      .prepare('SELECT count(*) AS n, sum(quantity) AS q FROM desired_stock')
      .get() as {
      n: number;
      q: number;
    };
    if (keys.n !== Math.ceil(rows / LOTS) || keys.q !== 15 * keys.n)
      throw new Error(`lots: ${keys.n} keys holding ${keys.q}`);
  }
  db.close();
  if (outcome.status !== 'processed' || outcome.rowsAccepted !== rows)
    throw new Error(`${format}: ${outcome.status}, ${outcome.rowsAccepted} rows, expected ${rows}`);
  report({ readS, cpuS: (cpu.user + cpu.system) / 1e6, bytes, ...figures });
}
