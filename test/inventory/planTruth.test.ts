import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planCommand } from '../../src/cli/commands/planCommand.ts';
import type { FilePlan } from '../../src/inventory/plan/planFile.ts';
import { replaceDistributionCentres } from '../../src/state/stock/distributionCentres.ts';
import { type IngestEnv, makeIngestEnv } from './helpers.ts';

let env: IngestEnv;
let work: string;
beforeEach(() => {
  env = makeIngestEnv('plan-truth');
  work = join(env.dataDir, 'work');
  mkdirSync(work);
  replaceDistributionCentres(env.db, [{ code: 'DC1', is_active: true }], 0);
});
afterEach(async () => {
  await env.cleanup();
});

const CAP = 1024;

async function plan(path: string, json: boolean): Promise<{ code: number; out: string }> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const code = await planCommand.run({
    argv: json ? [path, '--json'] : [path],
    env: { SYNC_DATA_DIR: env.dataDir, INBOX_MAX_RECORD_BYTES: String(CAP) },
    stdout,
    stderr: new PassThrough(),
    signal: new AbortController().signal,
  });
  return { code, out };
}

/** Files that go to failed/, each with rows rejected before (or instead of) the refusal. */
const failing: ReadonlyArray<readonly [string, string]> = [
  [
    'mixed.jsonl',
    '{"sku":"A","stock_quantity":-1}\n{"sku":"B","stock_quantity":2}\n{"distribution_centre_code":"DC1","sku":"C","stock_quantity":1}\n',
  ],
  ['quoting.csv', 'sku,stock_quantity\nA,-1\nB,x\n"C,1\n'],
  ['allbad.csv', 'sku,stock_quantity\nA,-1\nB,x\n,3\n'],
  ['toolong.csv', `sku,stock_quantity\nA,-1\nB,2\n${'L'.repeat(2 * CAP)},1\n`],
  ['toolong.jsonl', `{"sku":"A","stock_quantity":"x"}\n{"sku":"${'L'.repeat(2 * CAP)}"}\n`],
  ['nokind.jsonl', '42\n"x"\n{"foo":1}\n'],
  ['dcs.csv', 'distribution_centre_code,sku,stock_quantity\nNOPE,A,1\nDC1,B,-2\n'],
];

describe('plan tells the truth for files that would fail (#13 point 10)', () => {
  for (const [name, content] of failing) {
    it(`${name}: the same reason, counts and rejected rows as the real report`, async () => {
      const planned = join(work, name);
      writeFileSync(planned, content);
      const json = await plan(planned, true);
      expect(json.code).toBe(4);
      const p = JSON.parse(json.out) as FilePlan;

      copyFileSync(planned, join(env.paths.inbox, name));
      const out = await env.process(name, { maxRecordBytes: CAP });
      expect(out.status).toBe('failed');
      const report = env.report(out);

      expect(p.readable).toBe(false);
      const fields = [
        'reason',
        'kind',
        'rowsRead',
        'rowsAccepted',
        'rowsRejected',
        'rejected',
        'rejectedOmitted',
      ] as const;
      const pick = (o: Record<string, unknown>) => Object.fromEntries(fields.map((f) => [f, o[f]]));
      expect(pick(p as unknown as Record<string, unknown>)).toEqual(
        pick(report as unknown as Record<string, unknown>),
      );

      // The text says so too: where it would go, why, and each rejected row.
      const text = await plan(planned, false);
      expect(text.code).toBe(4);
      expect(text.out).toContain(`would go to failed/: ${report.reason}`);
      expect(text.out).toContain(`rejected ${report.rowsRejected}`);
      for (const r of report.rejected) {
        expect(text.out).toContain(`${report.positions} ${r.line}: ${r.field} ${r.reason}`);
      }
    });
  }

  it('names the rejected rows of files refused whole (the comparison above is not vacuous)', async () => {
    // Rows in the same read chunk as a CSV quoting error or an over-long CSV record are not
    // reached (csv-parse stops the chunk): those files name none, in the plan as in the report.
    const withRejects = failing.filter(([n]) => !['quoting.csv', 'toolong.csv'].includes(n));
    let named = 0;
    for (const [name, content] of withRejects) {
      const planned = join(work, name);
      writeFileSync(planned, content);
      const p = JSON.parse((await plan(planned, true)).out) as FilePlan;
      if (p.rejected.length > 0) named++;
    }
    expect(named).toBe(withRejects.length);
  });
});
