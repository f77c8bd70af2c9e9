import type { Stats } from 'node:fs';
import { link, lstat, readdir, unlink } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import { dataPaths, ensureDataDirs } from '../../config/dataPaths.ts';
import { type Clock, systemClock } from '../../domain/clock.ts';
import type { Logger } from '../../log/logger.ts';
import { fitName, type InboxEntry, isIgnoredName } from './inboxNames.ts';

export interface InboxWatcherOptions {
  readonly dataDir: string;
  /** A regular file is offered once its size, mtime and inode have not changed for this long. */
  readonly stabilityMs: number;
  /** Poll instead of file-system events (bind mounts, network shares). */
  readonly polling: boolean;
  readonly pollIntervalMs: number;
  /** A full scan of inbox/ this often catches what events missed, and re-offers files still there. */
  readonly scanIntervalMs: number;
  /**
   * Called once a file is ready. It may be called again for the same file (a later scan while
   * the file is still in inbox/), so it must be idempotent: key work by fileIdentity(entry).
   * Links and special files are offered at once (processInboxFile moves them to failed/).
   */
  readonly onFile: (entry: InboxEntry) => void | Promise<void>;
  readonly log: Logger;
  /** Measures the stability delay (the checks themselves run on real timers). Default: system. */
  readonly clock?: Clock;
}

interface Pending {
  sig: string;
  since: number;
}

/**
 * Watches inbox/ (not its subfolders) and offers each file once it has stopped changing, oldest
 * first (by mtime) among those ready together. Events are hints: every candidate is confirmed by
 * lstat, and a periodic scan finds anything an event missed. Nothing is ever opened here.
 */
export class InboxWatcher {
  readonly #opts: InboxWatcherOptions;
  readonly #inbox: string;
  readonly #pending = new Map<string, Pending>();
  /** Files offered, with the signature they had then; not offered again by events. */
  readonly #offered = new Map<string, string>();
  readonly #folders = new Set<string>();
  #chokidar: FSWatcher | undefined;
  #tick: NodeJS.Timeout | undefined;
  #scan: NodeJS.Timeout | undefined;
  #stopped = true;
  readonly #clock: Clock;

  constructor(options: InboxWatcherOptions) {
    this.#opts = options;
    this.#clock = options.clock ?? systemClock;
    this.#inbox = dataPaths(options.dataDir).inbox;
  }

  get inboxDir(): string {
    return this.#inbox;
  }

  /** Creates the data folders, starts watching, and takes in the files already there. */
  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    await ensureDataDirs(this.#opts.dataDir);
    const inbox = this.#inbox;
    const w = watch(inbox, {
      depth: 0,
      ignoreInitial: true,
      followSymlinks: false,
      usePolling: this.#opts.polling,
      interval: this.#opts.pollIntervalMs,
      binaryInterval: this.#opts.pollIntervalMs,
      ignored: (p: string) => p !== inbox && isIgnoredName(basename(p)),
    });
    const hint = (p: string) => {
      if (p !== inbox) void this.#observe(basename(p), false);
    };
    w.on('add', hint);
    w.on('change', hint);
    w.on('addDir', hint);
    w.on('unlink', (p) => this.#forget(basename(p)));
    w.on('unlinkDir', (p) => this.#folders.delete(basename(p)));
    w.on('error', (err) =>
      this.#opts.log.error({ event: 'inbox.watch_error', err }, 'inbox watcher error'),
    );
    this.#chokidar = w;
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
    await this.scan();
    this.#scan = setInterval(() => void this.scan(), this.#opts.scanIntervalMs);
    this.#opts.log.info(
      {
        event: 'inbox.watching',
        dir: inbox,
        polling: this.#opts.polling,
        pending: this.#pending.size,
      },
      'watching inbox/',
    );
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#scan) clearInterval(this.#scan);
    if (this.#tick) clearTimeout(this.#tick);
    this.#tick = undefined;
    this.#pending.clear();
    await this.#chokidar?.close();
    this.#chokidar = undefined;
  }

  /** Looks at every entry of inbox/ now; files still there are offered again once stable. */
  async scan(): Promise<void> {
    if (this.#stopped) return;
    let names: Buffer[];
    try {
      names = await readdir(this.#inbox, { encoding: 'buffer' });
    } catch (err) {
      this.#opts.log.error({ event: 'inbox.scan_failed', err }, 'could not list inbox/');
      return;
    }
    // One time for the whole scan: files found together become ready together, oldest first.
    const now = this.#clock.now();
    for (const raw of names) {
      const name = raw.toString('utf8');
      if (Buffer.from(name).equals(raw)) await this.#observe(name, true, now);
      else await this.#repairName(raw, name);
    }
  }

  /**
   * A name that is not valid UTF-8 (Latin-1 from an old ERP, say) cannot be reached through a
   * string path: the file would sit in inbox/ unseen forever. It is given the valid name its
   * bytes decode to (each invalid byte becomes U+FFFD, shortened to 255 bytes if need be, `-2`,
   * `-3`… if taken) by a hard link and an unlink, which never replace an existing file; the
   * renamed file is then handled like any other. Temporary and hidden names are left alone.
   */
  async #repairName(raw: Buffer, decoded: string): Promise<void> {
    if (isIgnoredName(decoded)) return;
    const from = Buffer.concat([Buffer.from(`${this.#inbox}/`), raw]);
    const ext = extname(decoded);
    for (let n = 1; n < 100 && !this.#stopped; n++) {
      const wanted =
        n === 1 ? decoded : `${decoded.slice(0, decoded.length - ext.length)}-${n}${ext}`;
      const name = fitName(wanted, 255);
      try {
        await link(from, join(this.#inbox, name));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') continue;
        if (code !== 'ENOENT' && code !== 'EPERM') {
          this.#opts.log.error(
            { event: 'inbox.name_repair_failed', file: decoded, err },
            'could not give a file with an invalid UTF-8 name a valid one',
          );
        }
        return; // gone, or a folder (EPERM): folders are not read anyway
      }
      await unlink(from).catch(() => undefined);
      this.#opts.log.warn(
        { event: 'inbox.name_repaired', file: name, bytes: raw.toString('hex') },
        `a file name in inbox/ was not valid UTF-8; renamed to ${name}`,
      );
      await this.#observe(name, true);
      return;
    }
  }

  #forget(name: string): void {
    this.#pending.delete(name);
    this.#offered.delete(name);
  }

  /** The entry's own status (links not followed); a name that vanished is forgotten. */
  async #stat(name: string): Promise<Stats | undefined> {
    try {
      return await lstat(join(this.#inbox, name));
    } catch {
      this.#forget(name);
      return undefined;
    }
  }

  async #observe(name: string, rescan: boolean, now = this.#clock.now()): Promise<void> {
    if (this.#stopped || isIgnoredName(name)) return;
    const path = join(this.#inbox, name);
    const st = await this.#stat(name);
    if (st === undefined || this.#stopped) return;
    if (st.isDirectory()) {
      if (!this.#folders.has(name)) {
        this.#folders.add(name);
        this.#opts.log.warn(
          { event: 'inbox.folder_ignored', file: name },
          `inbox/${name} is a folder; folders in inbox/ are not read`,
        );
      }
      return;
    }
    const sig = signature(st);
    if (!rescan && this.#offered.get(name) === sig) return;
    const entry: InboxEntry = { path, name, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
    if (!st.isFile()) {
      // A link, FIFO, socket or device: nothing to wait for, and never opened here.
      this.#offer([entry]);
      return;
    }
    const p = this.#pending.get(name);
    if (p === undefined || p.sig !== sig) {
      this.#pending.set(name, { sig, since: now });
      this.#settling(name, st, rescan ? 'scan' : 'event');
    }
    this.#schedule();
  }

  #schedule(): void {
    if (this.#tick !== undefined || this.#stopped || this.#pending.size === 0) return;
    const every = Math.max(20, Math.min(500, Math.floor(this.#opts.stabilityMs / 4)));
    this.#tick = setTimeout(() => {
      this.#tick = undefined;
      void this.#check().finally(() => this.#schedule());
    }, every);
  }

  /** Re-reads each pending file's signature; offers those unchanged for the stability delay. */
  async #check(): Promise<void> {
    const ready: InboxEntry[] = [];
    const now = this.#clock.now();
    for (const [name, p] of [...this.#pending]) {
      const path = join(this.#inbox, name);
      const st = await this.#stat(name);
      if (this.#stopped) return;
      if (st === undefined) continue;
      const sig = signature(st);
      if (sig !== p.sig) {
        p.sig = sig;
        p.since = now;
        this.#settling(name, st, 'check');
      } else if (now - p.since >= this.#opts.stabilityMs) {
        ready.push({ path, name, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino });
      }
    }
    this.#offer(ready);
  }

  /** A file seen new or changed: it is offered once it stays so for the stability delay. */
  #settling(name: string, st: Stats, seenBy: 'event' | 'scan' | 'check'): void {
    this.#opts.log.debug(
      { event: 'inbox.settling', file: name, size: st.size, seenBy },
      'file seen; waiting for it to stop changing',
    );
  }

  #offer(entries: InboxEntry[]): void {
    entries.sort((a, b) => a.mtimeMs - b.mtimeMs || a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (this.#stopped) return;
      this.#pending.delete(entry.name);
      this.#offered.set(entry.name, `${entry.size}:${entry.mtimeMs}:${entry.ino}`);
      this.#opts.log.debug(
        { event: 'inbox.ready', file: entry.name, size: entry.size },
        'file ready',
      );
      try {
        Promise.resolve(this.#opts.onFile(entry)).catch((err: unknown) => this.#failed(entry, err));
      } catch (err) {
        this.#failed(entry, err);
      }
    }
  }

  #failed(entry: InboxEntry, err: unknown): void {
    // Offered again by the next scan.
    this.#offered.delete(entry.name);
    this.#opts.log.error(
      { event: 'inbox.offer_failed', file: entry.name, err },
      `could not hand over ${entry.name}`,
    );
  }
}

/** What says a file is still changing: size, mtime and inode. */
function signature(st: { size: number; mtimeMs: number; ino: number }): string {
  return `${st.size}:${st.mtimeMs}:${st.ino}`;
}
