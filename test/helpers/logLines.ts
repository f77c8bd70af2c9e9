/** One JSON log line of the daemon (or of a command), parsed. */
export type LogLine = Record<string, unknown> & { event?: string; level?: string; msg?: string };

/** The log of a running daemon (in this process or a child), as a test reads and waits on it. */
export interface LogView {
  /** Every JSON line so far, parsed, in order. */
  readonly lines: LogLine[];
  /** Everything written so far (JSON lines and any other text), as text. */
  output(): string;
  /**
   * Resolves with the first line (already seen or coming) that matches; rejects when the daemon
   * ends first or after `timeoutMs` (15 s), with the last 40 lines of output.
   */
  waitFor(match: (l: LogLine) => boolean, timeoutMs?: number, what?: string): Promise<LogLine>;
  waitForEvent(event: string, timeoutMs?: number): Promise<LogLine>;
}

/**
 * Collects text lines as they come (`push`), parses the JSON ones, and lets tests wait for a
 * line; `end` makes waiters that can no longer be satisfied fail at once.
 */
export class LineWatch implements LogView {
  readonly lines: LogLine[] = [];
  readonly #raw: string[] = [];
  readonly #waiters = new Set<() => void>();
  #ended: string | undefined;

  push(text: string): void {
    this.#raw.push(text);
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object') this.lines.push(parsed as LogLine);
    } catch {
      // not a JSON line (help text, a console dump): kept in the raw output only
    }
    for (const w of this.#waiters) w();
  }

  /** Nothing more will come: `why` (e.g. "the process exited") is given to waiters still waiting. */
  end(why: string): void {
    this.#ended = why;
    for (const w of this.#waiters) w();
  }

  output(): string {
    return this.#raw.join('\n');
  }

  waitFor(match: (l: LogLine) => boolean, timeoutMs = 15_000, what = 'a log line') {
    return new Promise<LogLine>((resolve, reject) => {
      let seen = 0;
      const tail = () => this.#raw.slice(-40).join('\n');
      const check = () => {
        for (; seen < this.lines.length; seen++) {
          const l = this.lines[seen]!;
          if (match(l)) {
            cleanup();
            resolve(l);
            return;
          }
        }
        if (this.#ended !== undefined) {
          cleanup();
          reject(new Error(`${this.#ended} before ${what}; output:\n${tail()}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(`timed out after ${timeoutMs} ms waiting for ${what}; output:\n${tail()}`),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }

  waitForEvent(event: string, timeoutMs?: number) {
    return this.waitFor((l) => l.event === event, timeoutMs, `event ${event}`);
  }
}
