import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readDelimited } from '../../../src/inventory/parse/delimited.ts';
import {
  ByteTap,
  FileFormatError,
  type InboxFormat,
  type RecordEvent,
  readRecords,
} from '../../../src/inventory/parse/index.ts';
import { splitLines } from '../../../src/inventory/parse/jsonl.ts';

const CAP = 1024;

async function readAll(
  format: InboxFormat,
  text: string | Buffer,
  maxRecordBytes = CAP,
): Promise<RecordEvent[]> {
  const events: RecordEvent[] = [];
  const source = Readable.from([Buffer.from(text)], { objectMode: false });
  for await (const batch of readRecords(format, source, new ByteTap(), { maxRecordBytes })) {
    events.push(...batch);
  }
  return events;
}

async function failure(run: () => Promise<unknown>): Promise<FileFormatError> {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(FileFormatError);
    return err as FileFormatError;
  }
  throw new Error('expected the file to be refused');
}

const jsonLine = (sku: string) => JSON.stringify({ sku, stock_quantity: 1 });
/** A JSON line of exactly `bytes` UTF-8 bytes, made longer by its SKU. */
const jsonLineOf = (bytes: number, char = 'A') => {
  const base = Buffer.byteLength(jsonLine(''));
  const each = Buffer.byteLength(char);
  if ((bytes - base) % each !== 0) throw new Error('size not reachable with this character');
  return jsonLine(char.repeat((bytes - base) / each));
};

describe('INBOX_MAX_RECORD_BYTES in the JSON Lines reader', () => {
  it('takes a line of exactly the cap (LF or CRLF) and refuses one byte more, naming its line', async () => {
    const exact = jsonLineOf(CAP);
    expect(Buffer.byteLength(exact)).toBe(CAP);
    const ok = await readAll('jsonl', `${jsonLine('X')}\n${exact}\r\n${exact}`);
    expect(ok.filter((e) => e.type === 'record')).toHaveLength(3);

    const err = await failure(() =>
      readAll('jsonl', `${jsonLine('X')}\n\n${jsonLineOf(CAP + 1)}\n${jsonLine('Y')}\n`),
    );
    expect(err.message).toBe(
      'line 3: a record longer than 1024 bytes (the INBOX_MAX_RECORD_BYTES limit)',
    );
  });

  it('counts bytes, not characters: 3-byte characters reach the cap at a third of the length', async () => {
    const wide = jsonLineOf(Buffer.byteLength(jsonLine('')) + 3 * 400, '€'); // 400 characters, 1200+ bytes
    expect(wide.length).toBeLessThan(CAP);
    const err = await failure(() => readAll('jsonl', `${wide}\n`));
    expect(err.message).toMatch(/^line 1: a record longer than 1024 bytes/);
  });

  it('refuses a last line without a line feed over the cap', async () => {
    const err = await failure(() => readAll('jsonl', `${jsonLine('X')}\n${'x'.repeat(CAP + 1)}`));
    expect(err.message).toMatch(/^line 2: /);
  });

  it('stops reading a line without end once it passes the cap: at most a chunk more is read', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    let served = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      for (;;) {
        served++;
        yield chunk;
      }
    }
    const cap = 1024 * 1024;
    const read = async () => {
      for await (const _ of splitLines(endless(), cap)) {
        // no line ever ends
      }
    };
    await expect(read()).rejects.toThrow(/^line 1: a record longer than 1048576 bytes/);
    expect(served).toBeLessThanOrEqual(cap / chunk.length + 1);
  });
});

describe('INBOX_MAX_RECORD_BYTES in the CSV readers', () => {
  it('refuses a CSV row whose quoted field passes the cap, naming its line', async () => {
    const big = `sku,stock_quantity\nA,1\nB,2\n"${'x'.repeat(CAP + 10)}",3\nC,4\n`;
    const err = await failure(() => readAll('csv', big));
    expect(err.message).toBe(
      'line 4: a record longer than 1024 bytes (the INBOX_MAX_RECORD_BYTES limit)',
    );
    // A row just under the cap is read.
    const fine = await readAll('csv', `sku,stock_quantity\n${'y'.repeat(CAP - 10)},1\n`);
    expect(fine.filter((e) => e.type === 'record')).toHaveLength(1);
  });

  it('caps the delimited reader by default and names the line counted from the file’s start', async () => {
    const text = `title\nexported today\nsku;qty\nA;1\n${'z'.repeat(CAP + 5)};2\n`;
    const run = async (maxRecordBytes?: number) => {
      const source = Readable.from([Buffer.from(text)], { objectMode: false });
      const options = { headerLine: 3, ...(maxRecordBytes ? { maxRecordBytes } : {}) };
      const out: RecordEvent[] = [];
      for await (const batch of readDelimited(source, new ByteTap(), options)) out.push(...batch);
      return out;
    };
    const err = await failure(() => run(CAP));
    expect(err.message).toBe(
      'line 5: a record longer than 1024 bytes (the INBOX_MAX_RECORD_BYTES limit)',
    );
    // Without an explicit cap the 1 MiB default applies: this file is read.
    expect((await run()).filter((e) => e.type === 'record')).toHaveLength(2);
    const huge = Readable.from([Buffer.from(`sku;qty\n"${'q'.repeat(1024 * 1024 + 1)}";1\n`)], {
      objectMode: false,
    });
    await expect(
      (async () => {
        for await (const _ of readDelimited(huge, new ByteTap())) {
          // read to the end
        }
      })(),
    ).rejects.toThrow(/^line 2: a record longer than 1048576 bytes/);
  });
});
