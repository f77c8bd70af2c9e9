import { readFileSync } from 'node:fs';

/**
 * The version of this build: package.json's, read once (from src/ and from dist/ alike it is two
 * folders up; the image copies it beside dist/). `--version` prints it and the metrics carry it
 * as `supplier_sync_build_info`.
 */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
