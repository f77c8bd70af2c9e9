import { readFileSync } from 'node:fs';
import { ConfigError } from './configError.ts';

/**
 * A secret kept in a file (container secrets): the file's content without its trailing newline.
 * Unreadable: a ConfigError (exit 78) naming the setting (`key`, as SUPPLIER_PASSWORD_FILE) and the file, never the content. What a
 * usable secret is (not empty, long enough) each caller says.
 */
export function readSecretFile(key: string, path: string): string {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      key,
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`,
    );
  }
  return content.replace(/\r?\n$/, '');
}
