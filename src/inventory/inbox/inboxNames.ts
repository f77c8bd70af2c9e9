import { createHash } from 'node:crypto';

const TEMP_SUFFIXES = ['.tmp', '.part', '.partial'];

/** The names of inbox files: which are still being written, what identifies one, how one is cut short. */

/**
 * Names the ERP is still writing: hidden names (starting with '.') and names ending in .tmp,
 * .part or .partial (any case). They are left alone until renamed.
 */
export function isIgnoredName(name: string): boolean {
  if (name.startsWith('.')) return true;
  const lower = name.toLowerCase();
  return TEMP_SUFFIXES.some((s) => lower.endsWith(s));
}

/** A file in inbox/ as the watcher saw it when it was ready. */
export interface InboxEntry {
  readonly path: string;
  readonly name: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

/**
 * A stable key for one file in one state: the same name, inode, size and mtime give the same
 * key, across restarts. Made of [a-z0-9-] only, so it is usable as a BullMQ job id (no ':').
 */
export function fileIdentity(entry: Pick<InboxEntry, 'name' | 'size' | 'mtimeMs' | 'ino'>): string {
  const h = createHash('sha256')
    .update(`${entry.name}\u0000${entry.ino}\u0000${entry.size}\u0000${entry.mtimeMs}`)
    .digest('hex');
  return `inbox-${h.slice(0, 32)}`;
}

/** `name` if it fits in `maxBytes` of UTF-8, else its stem cut to fit, `~`, and its extension. */
export function fitName(name: string, maxBytes: number): string {
  if (Buffer.byteLength(name) <= maxBytes) return name;
  const dot = name.lastIndexOf('.');
  // An extension is kept when it is short (`.csv`, `.ndjson`); a long "extension" is just text.
  const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  const budget = maxBytes - Buffer.byteLength(ext) - 1;
  let stem = '';
  let used = 0;
  for (const ch of name.slice(0, name.length - ext.length)) {
    const size = Buffer.byteLength(ch);
    if (used + size > budget) break;
    stem += ch;
    used += size;
  }
  return `${stem}~${ext}`;
}
