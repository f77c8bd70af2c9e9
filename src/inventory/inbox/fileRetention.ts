import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import type { PrunedFiles } from '../../domain/prunedFiles.ts';
import { parseStoredName } from './storedNames.ts';

const REPORT_SUFFIX = '.report.json';

/**
 * Removes handled files received before `cutoff` (epoch ms) from processed/ and failed/, each
 * with its report. A stored name says when its file was received (`<UTC time>-<ledger id>-…`);
 * names without that prefix are not the daemon's and are left alone, and so are folders. Kept
 * however old: files whose ledger id is in `keep` (a report still to be completed). Hidden
 * temporary files (`.….tmp`, left by a crash during a copy or a report write) go once their
 * modification time is before the cutoff.
 */
export async function pruneHandledFiles(options: {
  readonly dataDir: string;
  readonly cutoff: number;
  readonly keep: ReadonlySet<number>;
}): Promise<PrunedFiles> {
  const paths = dataPaths(options.dataDir);
  const counts = { processed: 0, failed: 0, reports: 0 };
  for (const folder of ['processed', 'failed'] as const) {
    for (const entry of await readdir(paths[folder], { withFileTypes: true })) {
      if (entry.isDirectory()) continue;
      const { name } = entry;
      const path = join(paths[folder], name);
      if (name.startsWith('.')) {
        // A leftover of a crash during a copy or a report write: not a handled file, not counted.
        if (!name.endsWith('.tmp')) continue;
        const st = await lstat(path).catch(() => undefined);
        if (st !== undefined && st.mtimeMs < options.cutoff) await removed(path);
        continue;
      }
      const stored = parseStoredName(name);
      if (stored === undefined || stored.receivedAt >= options.cutoff) continue;
      if (options.keep.has(stored.ledgerId)) continue;
      if (!(await removed(path))) continue;
      if (name.endsWith(REPORT_SUFFIX)) counts.reports++;
      else counts[folder]++;
    }
  }
  return counts;
}

/** Unlinks (a link itself, never its target); false when it was gone already. */
async function removed(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
