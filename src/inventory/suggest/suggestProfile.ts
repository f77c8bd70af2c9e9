import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { describeProfilesProblem, profileSchema } from '../../config/profiles.ts';
import { SharedStringsTable } from '../../state/staging/sharedStringsTable.ts';
import { cellText, type FileHead } from '../parse/head/fileHead.ts';
import { readFileHead } from '../parse/head/readHead.ts';
import { FileFormatError, formatOf, SUPPORTED_EXTENSIONS } from '../parse/records.ts';
import { readHeadAs, type SuggestedRow } from './headRows.ts';
import { inferProfile } from './inferProfile.ts';
import { type KnownExport, recognise } from './knownExports.ts';
import { matchFor } from './profileDraft.ts';
import { notReadRows } from './unreadRows.ts';

export type { SuggestedRow } from './headRows.ts';

/** A profile suggested for a file, the first rows as it reads them, and what could not be decided. */
export interface Suggestion {
  /** In the contract's profile language, ready for INBOX_PROFILES_FILE; null when none could be made. */
  readonly profile: Readonly<Record<string, unknown>> | null;
  readonly rows: readonly SuggestedRow[];
  /** Plain sentences: what was found, what the profile assumes, what could not be decided. */
  readonly notes: readonly string[];
}

export interface SuggestOptions {
  /** The file's own name (its extension tells the format; `match` is made from it); default the path's. */
  readonly fileName?: string;
  readonly maxSkuLength: number;
  /** INBOX_MAX_RECORD_BYTES. */
  readonly maxRecordBytes?: number;
  /** Rows shown as the profile reads them (default 10). */
  readonly rows?: number;
  /** SYNC_TIMEZONE: what `today()` means in the profile's expressions (default UTC). */
  readonly timeZone?: string;
}

const ROWS_SHOWN = 10;

/**
 * A profile for a file nobody has described yet (product contract, "Any export"): reads the
 * head of the file (any format), recognises the exports of the systems whose profiles ship with
 * the project by their headers (their profile, its `match` fitted to the file's name) or infers
 * one (inferProfile), and reads the first rows with it as ingestion would. Writes nothing
 * (scratch files of a large workbook's shared strings aside, in the system's temp folder, gone
 * when read). `readable` is false when no profile could be suggested (the file cannot be read
 * as its format, or holds nothing a profile could read), or when the file would go to failed/
 * even read with it.
 */
export async function suggestProfile(
  path: string,
  options: SuggestOptions,
): Promise<Suggestion & { readonly readable: boolean }> {
  const fileName = options.fileName ?? basename(path);
  const format = formatOf(fileName);
  const none = (note: string) => ({ profile: null, rows: [], notes: [note], readable: false });
  if (format === undefined) return none(`unsupported file extension: use ${SUPPORTED_EXTENSIONS}`);
  if (!(await stat(path)).isFile()) return none('not a regular file');
  const spillStrings = () => SharedStringsTable.createIn(tmpdir());
  let head: FileHead;
  try {
    head = await readFileHead(path, format, {
      spillStrings,
      ...(options.maxRecordBytes === undefined ? {} : { maxRecordBytes: options.maxRecordBytes }),
    });
  } catch (err) {
    if (err instanceof FileFormatError) return none(`The file cannot be read: ${err.message}.`);
    throw err;
  }
  const inference = inferProfile(head, fileName);
  const table = head.tables[inference.table];
  const layout = inference.layout;
  const header = layout?.keys ?? layout?.header?.cells.map(cellText);
  const known =
    table !== undefined && (layout?.header === undefined || layout.header.line === 1)
      ? recognise(header, table)
      : undefined;
  const notes: string[] = [];
  let profile: Readonly<Record<string, unknown>> | undefined;
  if (known !== undefined) {
    profile = { ...(known.fitTo?.(header ?? []) ?? known.profile), match: matchFor(fileName) };
    notes.push(recognised(known, fileName));
  } else {
    profile = inference.profile as Readonly<Record<string, unknown>> | undefined;
    notes.push(...inference.notes);
  }
  if (profile === undefined || table === undefined || layout === undefined) {
    return { profile: null, rows: [], notes, readable: false };
  }
  const shown = options.rows ?? ROWS_SHOWN;
  const lines = layout.data
    .filter((r) => r.line >= Number(profile.dataLine ?? 0))
    .map((r) => r.line);
  const parsed = profileSchema.safeParse(profile);
  if (!parsed.success) {
    notes.push(
      `The first rows are shown as the cells the profile names, not read: the profile is refused (${describeProfilesProblem(parsed.error, profile)}).`,
    );
    return {
      profile,
      rows: notReadRows(
        profile,
        header,
        layout.data.filter((r) => lines.includes(r.line)).slice(0, shown),
      ),
      notes,
      readable: true,
    };
  }
  const read = await readHeadAs(path, parsed.data, {
    format,
    fileName,
    lines,
    maxRows: shown,
    maxSkuLength: options.maxSkuLength,
    ...(options.maxRecordBytes === undefined ? {} : { maxRecordBytes: options.maxRecordBytes }),
    spillStrings,
    ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone }),
  });
  if ('reason' in read) {
    notes.push(`Read with this profile, the file would still go to failed/: ${read.reason}.`);
    return { profile, rows: [], notes, readable: false };
  }
  return { profile, rows: read.rows, notes, readable: true };
}

function recognised(known: KnownExport, fileName: string): string {
  const shipped = known.profile.match as string;
  return `Recognised by its header as ${known.system}: this is the profile shipped in examples/profiles/${known.example}${known.fitTo ? ', its columns fitted to this file' : ''}, with match "${matchFor(fileName)}" for this file's name (shipped: "${shipped}"). Check its rules against your data.`;
}
