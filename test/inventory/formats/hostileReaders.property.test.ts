/**
 * Bounded memory for every format (issue #28 point 2), tested on the readers in this process:
 * inputs small on disk (or cheap to write) and huge in memory for a careless reader, generated
 * with fast-check; each is read to its end (or refused with a reason naming where) while the
 * process's RSS stays within 64 MiB of what it was before. The workbooks' own bombs are in
 * workbookBounds.test.ts; the real daemon meets the full-size files in
 * test/e2e/hostileInputs.test.ts, and bench/hostile.ts measures them.
 */
import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { ByteTap } from '../../../src/inventory/parse/byteTap.ts';
import { readRecords } from '../../../src/inventory/parse/index.ts';
import {
  type InboxFormat,
  MAX_FIELDS,
  type RecordEvent,
} from '../../../src/inventory/parse/records.ts';
import { tempFolder } from './helpers.ts';

const dir = tempFolder('hostile-readers');
const MiB = 1024 * 1024;
const SEED = Number(process.env.RELIABILITY_SEED ?? 20261125);

interface Read {
  readonly records: number;
  readonly bad: number;
  readonly columns: number;
  readonly error: Error | undefined;
  readonly grewMiB: number;
  readonly badReasons: Set<string>;
}

/** Reads `path` as `format` counting events (never keeping them), with the RSS it took. */
async function readCounting(path: string, format: InboxFormat, maxRecordBytes?: number) {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 2);
  let records = 0;
  let bad = 0;
  let columns = 0;
  const badReasons = new Set<string>();
  let error: Error | undefined;
  try {
    const options = maxRecordBytes === undefined ? {} : { maxRecordBytes };
    for await (const batch of readRecords(format, createReadStream(path), new ByteTap(), options)) {
      for (const e of batch as RecordEvent[]) {
        if (e.type === 'record') records++;
        else if (e.type === 'bad') {
          bad++;
          badReasons.add(e.reason);
        } else columns = e.columns.length;
      }
    }
  } catch (err) {
    error = err as Error;
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  return { records, bad, columns, error, grewMiB: (peak - before) / MiB, badReasons } as Read;
}

let fileNo = 0;
function file(ext: string, parts: Iterable<string | Buffer>): string {
  const path = join(dir, `f${++fileNo}.${ext}`);
  const fd = openSync(path, 'w');
  try {
    for (const p of parts) writeSync(fd, typeof p === 'string' ? Buffer.from(p) : p);
  } finally {
    closeSync(fd);
  }
  return path;
}

/** `unit` repeated `times`, as pieces of about 1 MiB (never one huge string). */
function* repeat(unit: string, times: number): Generator<string> {
  const per = Math.max(1, Math.floor(MiB / unit.length));
  const piece = unit.repeat(per);
  for (let left = times; left > 0; left -= per) {
    yield left >= per ? piece : unit.repeat(left);
  }
}

const runs = { numRuns: 3, seed: SEED };

// Each case reads tens of megabytes: time enough on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

describe('JSON arrays are read one element at a time', () => {
  it('a JSON array of millions of small values: every element read, memory bounded', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('{}', '[]', '1', '"x"', 'null', '{"a":{}}'),
        fc.integer({ min: 1_000_000, max: 2_500_000 }),
        fc.constantFrom('', ' ', '\n'),
        async (element, n, space) => {
          const path = file('json', [
            `[${space}${element}`,
            ...repeat(`,${space}${element}`, n - 1),
            `${space}]`,
          ]);
          const r = await readCounting(path, 'json');
          expect(r.error).toBeUndefined();
          expect(r.records + r.bad).toBe(n);
          expect(r.grewMiB).toBeLessThan(64);
        },
      ),
      runs,
    );
  });

  it('an element longer than the record cap ends the file at that element, without holding it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom('string', 'object', 'array'),
        fc.integer({ min: 2, max: 16 }),
        async (before, shape, mib) => {
          const open = shape === 'string' ? '"' : shape === 'object' ? '{"k":"' : '[';
          const unit = shape === 'array' ? '1,' : 'a';
          const close = shape === 'string' ? '"' : shape === 'object' ? '"}' : '1]';
          const path = file('json', [
            `[${Array.from({ length: before }, () => '{"sku":"A","stock_quantity":1}').join(',')},${open}`,
            ...repeat(unit, (mib * MiB) / unit.length),
            `${close}]`,
          ]);
          const r = await readCounting(path, 'json');
          expect(r.error?.message).toMatch(
            new RegExp(
              `^element ${before + 1}: a record longer than 1048576 bytes \\(the INBOX_MAX_RECORD_BYTES limit\\)`,
            ),
          );
          expect(r.records).toBe(before);
          expect(r.grewMiB).toBeLessThan(64);
        },
      ),
      runs,
    );
  });

  it('reads what JSON.parse reads, cut in any chunks: objects as records, other values as bad rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 64 }),
        fc.boolean(),
        async (values, chunk, pretty) => {
          const text = JSON.stringify(values, null, pretty ? 2 : undefined);
          const bytes = Buffer.from(text);
          const chunks: Buffer[] = [];
          for (let at = 0; at < bytes.length; at += chunk)
            chunks.push(bytes.subarray(at, at + chunk));
          const events: RecordEvent[] = [];
          for await (const b of readRecords('json', Readable.from(chunks), new ByteTap())) {
            events.push(...b);
          }
          expect(events.length).toBe(values.length);
          values.forEach((v, i) => {
            const e = events[i]!;
            expect(e.type !== 'columns' && e.line).toBe(i + 1);
            const isObject = v !== null && typeof v === 'object' && !Array.isArray(v);
            expect(e.type).toBe(isObject ? 'record' : 'bad');
          });
        },
      ),
      { numRuns: 200, seed: SEED },
    );
  });

  it('refuses what is not one JSON array, naming where', async () => {
    for (const [text, reason] of [
      ['{"sku":"A"}', /^not a JSON array of objects/],
      ['[{"sku":"A",', /^not readable as JSON: element 1 never ends/],
      ['[{"a":1} {"b":2}]', /^not readable as JSON: expected , or \] after element 1/],
      ['[{"a":1}] x', /^not readable as JSON: text after the closing \]/],
      ['[{"a":1},]', /^not readable as JSON: element 2: /],
      ['[{"a":tru}]', /^not readable as JSON: element 1: /],
      ['[1', /^not readable as JSON: element 1 never ends/],
    ] as const) {
      const r = await readCounting(file('json', [text]), 'json');
      expect(r.error?.message, text).toMatch(reason);
    }
  });
});

describe('wide records', () => {
  it('a header wider than MAX_FIELDS makes a delimited file unreadable at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: MAX_FIELDS + 1, max: 1_000_000 }),
        fc.constantFrom(',', '\t', ';'),
        async (n, d) => {
          const path = file(d === '\t' ? 'tsv' : 'csv', [
            `sku${d}stock_quantity`,
            ...repeat(d, n - 2),
            '\nA',
            ...repeat(d, n - 2),
            '1\n',
          ]);
          const r = await readCounting(path, 'csv');
          expect(r.error?.message).toBe(`the header has ${n} columns, more than ${MAX_FIELDS}`);
          expect(r.grewMiB).toBeLessThan(64);
        },
      ),
      runs,
    );
  });

  it('rows of a hundred thousand empty fields under a small header are bad rows, read in bounded memory', async () => {
    const path = file('csv', [
      'sku,stock_quantity\n',
      ...Array.from({ length: 40 }, () => ['A,1', ...repeat(',', 100_000), '\n']).flat(),
      'B,2\n',
    ]);
    const r = await readCounting(path, 'csv');
    expect(r.error).toBeUndefined();
    expect(r.bad).toBe(40);
    expect(r.records).toBe(1);
    expect(r.grewMiB).toBeLessThan(64);
  });

  it('a JSON object of more than MAX_FIELDS keys is a bad row; lines of them are read in bounded memory', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: MAX_FIELDS + 1, max: 40_000 }),
        fc.integer({ min: 10, max: 30 }),
        async (keys, lines) => {
          const wide = `{"sku":"A","stock_quantity":1,${Array.from({ length: keys }, (_, i) => `"k${i}":0`).join(',')}}\n`;
          const path = file('jsonl', [
            ...Array.from({ length: lines }, () => wide),
            '{"sku":"B","stock_quantity":2}\n',
          ]);
          const r = await readCounting(path, 'jsonl', 2 * MiB);
          expect(r.error).toBeUndefined();
          expect(r.bad).toBe(lines);
          expect(r.badReasons).toEqual(new Set([`has more than ${MAX_FIELDS} fields`]));
          expect(r.records).toBe(1);
          expect(r.grewMiB).toBeLessThan(64);
        },
      ),
      runs,
    );
  });
});
