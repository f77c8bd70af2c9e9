/**
 * Bounded reports (issue #28 point 3): a file of many bad rows gets a report listing the first
 * MAX_REJECTED_LISTED of them (at most MAX_REJECTED_BYTES), the rest counted in
 * `rejectedOmitted`, whatever the format; `plan` says the same.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { planCommand } from '../../src/cli/commands/planCommand.ts';
import { MAX_REJECTED_BYTES, MAX_REJECTED_LISTED } from '../../src/inventory/ingest/collector.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

let env: IngestEnv;
beforeEach(() => {
  env = makeIngestEnv('report-bounds');
});
afterEach(async () => {
  await env.cleanup();
});

const REPORT_MAX = 512 * 1024;
const ROWS = 30_000;
const long = 'v'.repeat(300);

async function plan(path: string): Promise<{ code: number; out: string }> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const code = await planCommand.run({
    argv: [path, '--json'],
    env: { SYNC_DATA_DIR: env.dataDir },
    stdout,
    stderr: new PassThrough(),
    signal: new AbortController().signal,
  });
  return { code, out };
}

const files: ReadonlyArray<readonly [string, () => string]> = [
  // Every quantity bad, each value long (cut to 100 characters in the report).
  [
    'bad.csv',
    () =>
      `sku,stock_quantity\n${Array.from({ length: ROWS }, (_, i) => `S${i},${long}${i}`).join('\n')}\n`,
  ],
  // A JSON array of empty objects (the review's 906 MB report for 32 MB).
  ['empty.json', () => `[${Array.from({ length: ROWS }, () => '{}').join(',')}]`],
  // JSON Lines of values that are not objects, then one good row: a processed file.
  [
    'junk.jsonl',
    () =>
      `${Array.from({ length: ROWS }, (_, i) => `"${long}${i}"`).join('\n')}\n{"sku":"A","stock_quantity":1}\n`,
  ],
];

for (const [name, content] of files) {
  it(`${name}: the report lists the first ${MAX_REJECTED_LISTED} rejected rows, counts the rest, and stays small; plan the same`, async () => {
    const text = content();
    env.drop(name, text);
    const out = await env.process(name);
    const report = env.report(out);
    expect(statSync(out.reportPath!).size).toBeLessThan(REPORT_MAX);
    expect(report.rowsRejected).toBe(ROWS);
    expect(report.rejected.length).toBeGreaterThan(0);
    expect(report.rejected.length).toBeLessThanOrEqual(MAX_REJECTED_LISTED);
    expect(JSON.stringify(report.rejected).length).toBeLessThan(MAX_REJECTED_BYTES + 1024);
    expect(report.rejected.length + report.rejectedOmitted).toBe(ROWS);
    // The first ones, in file order.
    const lines = report.rejected.map((r) => r.line);
    expect(lines[0]).toBe(name === 'bad.csv' ? 2 : 1);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));

    const work = join(env.dataDir, 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, name), text);
    const planned = await plan(join(work, name));
    expect(planned.out.length).toBeLessThan(REPORT_MAX);
    const p = JSON.parse(planned.out);
    expect(p.rowsRejected).toBe(ROWS);
    expect(p.rejected).toEqual(report.rejected);
    expect(p.rejectedOmitted).toBe(report.rejectedOmitted);
  });
}
