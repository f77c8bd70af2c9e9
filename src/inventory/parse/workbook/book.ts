import { normalizeColumn } from '../columnName.ts';
import { FileFormatError, showValue } from '../records.ts';
import {
  isType,
  PACKAGE_RELS,
  type Relationship,
  relationshipIdOf,
  relsPartOf,
  resolveTarget,
} from './opc.ts';
import { parseXml, type XmlHandlers, type XmlLimits } from './xml.ts';
import type { Package } from './zip.ts';

/** The parts of a workbook that one worksheet's values need. */
export interface BookParts {
  /**
   * The worksheet asked for (by name, any case, or 1-based position in the tab order), or the
   * first worksheet in the tab order (a chart or dialog sheet is passed over).
   */
  readonly sheet: string;
  readonly sharedStrings: string | undefined;
  readonly styles: string | undefined;
  /** Dates count from 1904 (`workbookPr date1904`), not 1900. */
  readonly date1904: boolean;
  /** Every worksheet in the tab order, with its name (chart and dialog sheets left out). */
  readonly worksheets: ReadonlyArray<{ readonly name: string; readonly part: string }>;
}

/** Most sheets, relationships or cell styles a workbook part may list (Excel's own bounds are lower). */
export const MAX_LISTED = 65_536;

/** Where a workbook without package relationships keeps its workbook part (every writer). */
const USUAL_WORKBOOK = '/xl/workbook.xml';

/**
 * Finds the workbook's parts through its relationships, as the Open Packaging Conventions say:
 * the package's relationships name the workbook part (the office document), the workbook part's
 * relationships name its sheets, shared strings and styles, and its sheet list gives the tab
 * order. Targets may be relative or absolute; the zip order of the parts does not matter.
 */
export async function locateParts(
  pkg: Package,
  limits: XmlLimits,
  wanted?: string | number,
): Promise<BookParts> {
  let workbook = USUAL_WORKBOOK;
  if (pkg.has(PACKAGE_RELS)) {
    const office = (await readRelationships(pkg, PACKAGE_RELS, '/', limits)).find(
      (r) => isType(r.type, 'officeDocument') && r.target !== undefined,
    );
    if (office?.target !== undefined) workbook = office.target;
  }
  if (!pkg.has(workbook)) throw new FileFormatError('it holds no workbook part');
  const rels = pkg.has(relsPartOf(workbook))
    ? await readRelationships(pkg, relsPartOf(workbook), workbook, limits)
    : [];
  const book = await readWorkbook(pkg, workbook, limits);
  const byId = new Map(rels.map((r) => [r.id, r]));
  const worksheet = (id: string) => {
    const rel = byId.get(id);
    return rel?.target !== undefined && isType(rel.type, 'worksheet') && pkg.has(rel.target)
      ? rel.target
      : undefined;
  };
  const sheet =
    wanted === undefined
      ? book.sheets.map((s) => worksheet(s.id)).find((t) => t !== undefined)
      : chosenSheet(book.sheets, wanted, worksheet);
  if (sheet === undefined) throw new FileFormatError('it holds no worksheet');
  // A part its relationship does not name is still taken where every writer puts it.
  const part = (kind: string, usual: string) =>
    rels.find((r) => isType(r.type, kind) && r.target !== undefined && pkg.has(r.target))?.target ??
    (pkg.has(usual) ? usual : undefined);
  const worksheets = book.sheets.flatMap((s) => {
    const target = worksheet(s.id);
    return target === undefined ? [] : [{ name: s.name, part: target }];
  });
  return {
    sheet,
    sharedStrings: part('sharedStrings', '/xl/sharedStrings.xml'),
    styles: part('styles', '/xl/styles.xml'),
    date1904: book.date1904,
    worksheets,
  };
}

/** Reads a part with `handlers`, to its end. */
export async function readPart(
  pkg: Package,
  part: string,
  handlers: XmlHandlers,
  limits: XmlLimits,
): Promise<void> {
  for await (const _ of parseXml(await pkg.open(part), part, handlers, limits));
}

export async function readRelationships(
  pkg: Package,
  part: string,
  source: string,
  limits: XmlLimits,
): Promise<Relationship[]> {
  const rels: Relationship[] = [];
  await readPart(
    pkg,
    part,
    {
      open(name, a) {
        if (name !== 'Relationship' || a.Id === undefined || a.Type === undefined) return;
        if (rels.length >= MAX_LISTED) {
          throw new FileFormatError(`its part ${part} lists more than ${MAX_LISTED} relationships`);
        }
        const external = a.TargetMode?.toLowerCase() === 'external';
        const target =
          external || a.Target === undefined ? undefined : resolveTarget(source, a.Target);
        rels.push({ id: a.Id, type: a.Type, target });
      },
      text() {},
      close() {},
    },
    limits,
  );
  return rels;
}

/**
 * The part of the sheet a profile asks for: by 1-based position in the tab order, or by name
 * (trimmed, any case); a FileFormatError naming the sheets there are when there is none such.
 */
function chosenSheet(
  sheets: ReadonlyArray<{ id: string; name: string }>,
  wanted: string | number,
  worksheet: (id: string) => string | undefined,
): string {
  const fold = (name: string) => normalizeColumn(name);
  const found =
    typeof wanted === 'number'
      ? sheets[wanted - 1]
      : sheets.find((s) => fold(s.name) === fold(wanted));
  const names = sheets
    .slice(0, 20)
    .map((s) => `"${showValue(s.name)}"`)
    .join(', ');
  const asked = typeof wanted === 'number' ? `sheet ${wanted}` : `sheet named "${wanted}"`;
  if (found === undefined) {
    throw new FileFormatError(`it has no ${asked} (its sheets: ${names || 'none'})`);
  }
  const part = worksheet(found.id);
  if (part === undefined) throw new FileFormatError(`its ${asked} is not a worksheet`);
  return part;
}

async function readWorkbook(pkg: Package, part: string, limits: XmlLimits) {
  const sheets: Array<{ id: string; name: string }> = [];
  let date1904 = false;
  await readPart(
    pkg,
    part,
    {
      open(name, a) {
        if (name === 'workbookPr') {
          const v = a.date1904?.toLowerCase();
          date1904 = v === '1' || v === 'true';
        } else if (name === 'sheet') {
          if (sheets.length >= MAX_LISTED) {
            throw new FileFormatError(`its part ${part} lists more than ${MAX_LISTED} sheets`);
          }
          const id = relationshipIdOf(a);
          if (id !== undefined) sheets.push({ id, name: a.name ?? '' });
        }
      },
      text() {},
      close() {},
    },
    limits,
  );
  return { sheets, date1904 };
}
