import { open } from 'node:fs/promises';
import { intoPlace } from '../../files/durable.ts';
import type { FileReport } from './report.ts';

/**
 * Writes a report atomically and durably. Its size is bounded where it is built: at most
 * MAX_REJECTED_LISTED rejected rows of at most MAX_REJECTED_BYTES (collect.ts; the rest are
 * counted in `rejectedOmitted`), each value cut to 100 characters, at most 50 ignored columns and
 * MAX_DUPLICATE_KEYS_LISTED duplicate keys.
 */
export async function writeReportFile(path: string, report: FileReport): Promise<void> {
  await intoPlace(path, (tmp) => writeAll(tmp, `${JSON.stringify(report, null, 2)}\n`));
}

async function writeAll(path: string, text: string): Promise<void> {
  const handle = await open(path, 'w', 0o644);
  try {
    await handle.write(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
