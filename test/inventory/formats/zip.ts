import { crc32, deflateRawSync } from 'node:zlib';

/** A part already deflated: its compressed bytes, and the size and CRC of what they inflate to. */
export interface Deflated {
  readonly deflated: Buffer;
  readonly size: number;
  readonly crc: number;
}

/**
 * A minimal zip writer (entries in the order given; stored, or deflated when `deflate` is set or
 * the content comes deflated), to build workbooks part by part: the parts in any order, inline
 * strings, chart sheets, deflate bombs — layouts that no writer at hand produces.
 */
export function zip(
  entries: ReadonlyArray<readonly [name: string, content: string | Buffer | Deflated]>,
  options: { deflate?: boolean } = {},
): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of entries) {
    let data: Buffer;
    let size: number;
    let crc: number;
    let method = 0;
    if (typeof content === 'string' || Buffer.isBuffer(content)) {
      const raw = typeof content === 'string' ? Buffer.from(content) : content;
      size = raw.length;
      crc = crc32(raw);
      data = options.deflate ? deflateRawSync(raw) : raw;
      if (options.deflate) method = 8;
    } else {
      data = content.deflated;
      size = content.size;
      crc = content.crc;
      method = 8;
    }
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const RNS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

/** The workbook part listing sheets (name → relationship id) in tab order. */
export const workbookXml = (sheets: ReadonlyArray<readonly [name: string, rId: string]>) =>
  `<?xml version="1.0" encoding="UTF-8"?><workbook ${NS} ${RNS}><sheets>${sheets
    .map(([name, rId], i) => `<sheet name="${name}" sheetId="${i + 1}" r:id="${rId}"/>`)
    .join('')}</sheets></workbook>`;

/**
 * A relationships part: id → target (`worksheets/sheet1.xml`, `/xl/worksheets/sheet1.xml`), of
 * the given type (the last segment of the type URI; `worksheet` unless said).
 */
export const relsXml = (
  rels: ReadonlyArray<readonly [rId: string, target: string, type?: string]>,
) =>
  `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels
    .map(
      ([id, target, type]) =>
        `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type ?? 'worksheet'}" Target="${target}"/>`,
    )
    .join('')}</Relationships>`;

export const sharedStringsXml = (strings: readonly string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><sst ${NS} count="${strings.length}" uniqueCount="${strings.length}">${strings
    .map((s) => `<si><t>${s}</t></si>`)
    .join('')}</sst>`;

/** A worksheet part from rows of raw `<c>` cell XML. */
export const sheetXml = (rows: ReadonlyArray<readonly [row: number, cells: string]>) =>
  `<?xml version="1.0" encoding="UTF-8"?><worksheet ${NS}><sheetData>${rows
    .map(([r, cells]) => `<row r="${r}">${cells}</row>`)
    .join('')}</sheetData></worksheet>`;
