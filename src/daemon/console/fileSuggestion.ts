import { join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import type { Config } from '../../config/index.ts';
import { type Suggestion, suggestProfile } from '../../inventory/index.ts';
import type { FileView } from '../views.ts';

/**
 * The profile suggested for a file that failed (`plan FILE --suggest-profile` on the file as
 * failed/ keeps it, under its stored name); undefined for a file that did not fail; a sentence
 * when the file is no longer there.
 */
export async function failedFileSuggestion(
  config: Pick<Config, 'dataDir' | 'maxSkuLength' | 'inboxMaxRecordBytes'> &
    Partial<Pick<Config, 'timezone'>>,
  f: FileView,
): Promise<Suggestion | string | undefined> {
  if (f.outcome !== 'failed' || f.storedAs === null) return undefined;
  try {
    return await suggestProfile(join(dataPaths(config.dataDir).failed, f.storedAs), {
      fileName: f.file,
      maxSkuLength: config.maxSkuLength,
      maxRecordBytes: config.inboxMaxRecordBytes,
      ...(config.timezone === undefined ? {} : { timeZone: config.timezone }),
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return 'The file is no longer in failed/ (removed, or pruned after RETENTION_DAYS): no profile can be suggested for it here.';
    }
    throw err;
  }
}
