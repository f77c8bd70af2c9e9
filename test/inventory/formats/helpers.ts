import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll } from 'vitest';
import { ByteTap } from '../../../src/inventory/parse/byteTap.ts';
import {
  type DelimitedOptions,
  type Dialect,
  readDelimited,
} from '../../../src/inventory/parse/delimited.ts';
import type { RecordEvent } from '../../../src/inventory/parse/records.ts';
import { readXlsx, type XlsxOptions } from '../../../src/inventory/parse/xlsx.ts';

/** A temp folder for this test file, removed after it. */
export function tempFolder(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `supplier-sync-${label}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface ReadResult {
  readonly events: RecordEvent[];
  readonly dialect: Dialect | undefined;
  /** sha256 the tap saw, and of the file's bytes: they must agree. */
  readonly tapHash: string;
  readonly fileHash: string;
}

/** Writes `bytes` to a real file and reads it back through readDelimited. */
export async function readDelimitedFile(
  dir: string,
  name: string,
  bytes: Buffer,
  options: DelimitedOptions = {},
): Promise<ReadResult> {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return readDelimitedStream(createReadStream(path, { highWaterMark: 1024 }), bytes, options);
}

/** Reads bytes handed over in the given chunks (to cut sequences at chosen places). */
export async function readDelimitedStream(
  source: Readable,
  bytes: Buffer,
  options: DelimitedOptions = {},
): Promise<ReadResult> {
  const tap = new ByteTap();
  let dialect: Dialect | undefined;
  const events: RecordEvent[] = [];
  for await (const batch of readDelimited(source, tap, {
    ...options,
    onDialect: (d) => {
      dialect = d;
    },
  }))
    events.push(...batch);
  return {
    events,
    dialect,
    tapHash: tap.digest(),
    fileHash: createHash('sha256').update(bytes).digest('hex'),
  };
}

/** A stream handing `bytes` over in pieces of `size` bytes. */
export function chunked(bytes: Buffer, size: number): Readable {
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  return Readable.from(pieces, { objectMode: false });
}

export const records = (events: readonly RecordEvent[]) =>
  events.flatMap((e) => (e.type === 'record' ? [{ line: e.line, ...e.fields }] : []));
export const columns = (events: readonly RecordEvent[]) =>
  events.find((e) => e.type === 'columns')?.columns;
export const bad = (events: readonly RecordEvent[]) => events.filter((e) => e.type === 'bad');

/** Windows-1252 bytes of a text (only characters that code page has). */
export function cp1252(text: string): Buffer {
  const table: Record<string, number> = {
    '€': 0x80,
    '„': 0x84,
    '…': 0x85,
    '–': 0x96,
    '—': 0x97,
    '“': 0x93,
    '”': 0x94,
  };
  const out: number[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (table[ch] !== undefined) out.push(table[ch]);
    else if (code < 0x80 || (code >= 0xa0 && code <= 0xff)) out.push(code);
    else throw new Error(`no Windows-1252 byte for ${ch}`);
  }
  return Buffer.from(out);
}

export const utf16le = (text: string, bom = true) =>
  Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);

export function utf16be(text: string, bom = true): Buffer {
  const le = Buffer.from(text, 'utf16le');
  const be = Buffer.alloc(le.length);
  for (let i = 0; i < le.length; i += 2) {
    be[i] = le[i + 1]!;
    be[i + 1] = le[i]!;
  }
  return Buffer.concat([bom ? Buffer.from([0xfe, 0xff]) : Buffer.alloc(0), be]);
}

/** Reads a real workbook file through readXlsx. */
export async function readXlsxFile(path: string, options: XlsxOptions & { handle?: boolean } = {}) {
  const tap = new ByteTap();
  const events: RecordEvent[] = [];
  let headerRow: number | undefined;
  // As the daemon reads it (the open file, read where it lies), or as a stream copied first.
  const file = options.handle ? await open(path) : undefined;
  try {
    const source = file ? file.createReadStream({ autoClose: false }) : createReadStream(path);
    for await (const batch of readXlsx(source, tap, {
      ...options,
      ...(file ? { file } : {}),
      onHeader: (row) => {
        headerRow = row;
      },
    }))
      events.push(...batch);
  } finally {
    await file?.close();
  }
  const fileHash = createHash('sha256').update(readFileSync(path)).digest('hex');
  return { events, headerRow, tapHash: tap.digest(), fileHash };
}

/** The encodings the property tests write files in. */
export const ENCODINGS = ['utf-8', 'utf-8-bom', 'utf-16le', 'utf-16be', 'windows-1252'] as const;
export type Written = (typeof ENCODINGS)[number];

/** `text` as the bytes an ERP writing in `encoding` would produce (BOMs included). */
export function encode(text: string, encoding: Written): Buffer {
  switch (encoding) {
    case 'utf-8':
      return Buffer.from(text);
    case 'utf-8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    case 'utf-16le':
      return utf16le(text);
    case 'utf-16be':
      return utf16be(text);
    case 'windows-1252':
      return cp1252(text);
  }
}

/** Quoted when it holds any candidate delimiter, a quote, a line break or edge spaces. */
export function quote(value: string): string {
  return /[",;\t|\r\n]/.test(value) || value !== value.trim()
    ? `"${value.replaceAll('"', '""')}"`
    : value;
}
