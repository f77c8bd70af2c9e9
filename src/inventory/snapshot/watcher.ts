import { basename, dirname, resolve } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import type { Logger } from '../../log/logger.ts';

export interface SnapshotWatcherOptions {
  /** Path of the ERP snapshot (SNAPSHOT_DB). */
  readonly path: string;
  /**
   * Called (debounced) after the snapshot or its -wal/-journal changed, was created, or was
   * replaced by a rename. Calls never overlap: a change during a call runs it once more after.
   * A call that throws, or resolves to `false` or `{status: 'failed'}`, is retried after `retryMs`.
   */
  readonly onChange: () => unknown;
  readonly log: Logger;
  /** Quiet time after the last change before onChange, in milliseconds (default 1000). */
  readonly debounceMs?: number;
  /** Retry delay after a failed read, in milliseconds (default 30,000). */
  readonly retryMs?: number;
  readonly polling?: boolean;
  readonly pollIntervalMs?: number;
}

/**
 * Watches the snapshot file through its folder, so that an ERP that writes a new file and renames
 * it over the old one is seen as well as one that writes in place.
 */
export class SnapshotWatcher {
  readonly #opts: SnapshotWatcherOptions;
  readonly #path: string;
  readonly #names: Set<string>;
  #chokidar: FSWatcher | undefined;
  #debounce: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #running = false;
  #again = false;
  #stopped = true;

  constructor(options: SnapshotWatcherOptions) {
    this.#opts = options;
    this.#path = resolve(options.path);
    const name = basename(this.#path);
    this.#names = new Set([name, `${name}-wal`, `${name}-journal`]);
  }

  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    const dir = dirname(this.#path);
    const w = watch(dir, {
      depth: 0,
      ignoreInitial: true,
      followSymlinks: true,
      usePolling: this.#opts.polling ?? false,
      interval: this.#opts.pollIntervalMs ?? 1000,
      binaryInterval: this.#opts.pollIntervalMs ?? 1000,
      ignored: (p: string) => p !== dir && !this.#names.has(basename(p)),
    });
    const hint = (p: string) => {
      if (this.#names.has(basename(p))) this.trigger();
    };
    w.on('add', hint);
    w.on('change', hint);
    w.on('unlink', hint);
    w.on('error', (err) =>
      this.#opts.log.error({ event: 'snapshot.watch_error', err }, 'snapshot watcher error'),
    );
    this.#chokidar = w;
    await new Promise<void>((r) => w.once('ready', () => r()));
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#debounce);
    clearTimeout(this.#retry);
    await this.#chokidar?.close();
    this.#chokidar = undefined;
  }

  /** Asks for a read after the debounce delay (also used by the schedule). */
  trigger(): void {
    if (this.#stopped) return;
    clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => void this.#run(), this.#opts.debounceMs ?? 1000);
  }

  async #run(): Promise<void> {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    clearTimeout(this.#retry);
    let failed = false;
    try {
      const result = await this.#opts.onChange();
      failed =
        result === false || (result as { status?: unknown } | undefined)?.status === 'failed';
    } catch (err) {
      failed = true;
      this.#opts.log.error({ event: 'snapshot.failed', err }, 'snapshot read threw');
    } finally {
      this.#running = false;
    }
    if (this.#stopped) return;
    if (this.#again) {
      this.#again = false;
      this.trigger();
    } else if (failed) {
      this.#retry = setTimeout(() => void this.#run(), this.#opts.retryMs ?? 30_000);
    }
  }
}
