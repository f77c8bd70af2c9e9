/**
 * Bounded memory for every format (issue #28 point 2), tested on the readers:
 * inputs small on disk (or cheap to write) and huge in memory for a careless reader, generated
 * with fast-check; each is read to its end (or refused with a reason naming where) by a fresh
 * child process whose peak RSS stays under 160 MiB (about 80 with nothing read). The workbooks' own bombs are in
 * workbookBounds.test.ts; the real daemon meets the full-size files in
 * test/e2e/hostileInputs.test.ts, and bench/hostile.ts measures them.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { DAEMON_NODE_FLAGS } from '../../src/cli/nodeFlags.ts';
import { ByteTap } from '../../src/inventory/parse/byteTap.ts';
import { readRecords } from '../../src/inventory/parse/index.ts';
import {
  type InboxFormat,
  MAX_FIELDS,
  type RecordEvent,
} from '../../src/inventory/parse/records.ts';
import { tempFolder } from '../inventory/formats/helpers.ts';

const dir = tempFolder('hostile-readers');
const MiB = 1024 * 1024;
const SEED = Number(process.env.RELIABILITY_SEED ?? 20261125);

interface Read {
  readonly records: number;
  readonly bad: number;
  readonly columns: number;
  readonly error: string | undefined;
  readonly badReasons: readonly string[];
  /** The reading process's peak RSS (VmHWM). */
  readonly peakMiB: number;
}

const NODE = join(process.cwd(), 'node_modules/.bin/node');
const FIXTURE = join(process.cwd(), 'test/fixtures/read-records.ts');
/** A reading child with nothing read peaks at about 80 MiB: the readers may add 80 at most. */
const PEAK_MIB = 160;

/**
 * Reads `path` as `format` in a fresh child process (the daemon's node flags), counting events
 * without keeping them; its peak RSS is this reading's alone, whatever this test process holds.
 */
function readCounting(path: string, format: InboxFormat, maxRecordBytes?: number): Read {
  const args = [...DAEMON_NODE_FLAGS, FIXTURE, path, format];
  if (maxRecordBytes !== undefined) args.push(String(maxRecordBytes));
  const child = spawnSync(NODE, args, { encoding: 'utf8', timeout: 100_000 });
  if (child.status !== 0)
    throw new Error(`reading child: ${child.signal ?? child.status} ${child.stderr}`);
  return JSON.parse(child.stdout) as Read;
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
          const r = readCounting(path, 'json');
          expect(r.error).toBeUndefined();
          expect(r.records + r.bad).toBe(n);
          expect(r.peakMiB).toBeLessThan(PEAK_MIB);
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
          const r = readCounting(path, 'json');
          expect(r.error).toMatch(
            new RegExp(
              `^element ${before + 1}: a record longer than 1048576 bytes \\(the INBOX_MAX_RECORD_BYTES limit\\)`,
            ),
          );
          expect(r.records).toBe(before);
          expect(r.peakMiB).toBeLessThan(PEAK_MIB);
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
      const r = readCounting(file('json', [text]), 'json');
      expect(r.error, text).toMatch(reason);
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
          const r = readCounting(path, 'csv');
          expect(r.error).toBe(`the header has ${n} columns, more than ${MAX_FIELDS}`);
          expect(r.peakMiB).toBeLessThan(PEAK_MIB);
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
    const r = readCounting(path, 'csv');
    expect(r.error).toBeUndefined();
    expect(r.bad).toBe(40);
    expect(r.records).toBe(1);
    expect(r.peakMiB).toBeLessThan(PEAK_MIB);
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
          const r = readCounting(path, 'jsonl', 2 * MiB);
          expect(r.error).toBeUndefined();
          expect(r.bad).toBe(lines);
          expect(r.badReasons).toEqual([`has more than ${MAX_FIELDS} fields`]);
          expect(r.records).toBe(1);
          expect(r.peakMiB).toBeLessThan(PEAK_MIB);
        },
      ),
      runs,
    );
  });
});
