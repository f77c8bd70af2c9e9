import { FileFormatError } from '../records.ts';

/**
 * Where shared strings go once there are too many to keep in memory: a table on disk (the state
 * layer gives one, in the data dir's scratch folder). Indices are the strings' positions in the
 * workbook's shared-strings part.
 */
export interface StringSpill {
  /** Stores `strings` at consecutive indices from `first`. */
  append(first: number, strings: readonly string[]): void;
  /** The strings at indices [from, to) in order; fewer past the end. */
  range(from: number, to: number): string[];
  /** Closes and removes the table. */
  discard(): void;
}

export interface SharedStringsOptions {
  /** Characters of strings kept in memory before the rest goes to the spill. */
  readonly maxMemoryChars: number;
  /** Strings kept in memory before the rest goes to the spill. */
  readonly maxMemoryStrings: number;
  /** Makes the on-disk table; without it, a workbook past the memory bounds is refused. */
  readonly spill?: () => StringSpill;
}

export const DEFAULT_SHARED_STRINGS: SharedStringsOptions = {
  maxMemoryChars: 1024 * 1024,
  maxMemoryStrings: 32_768,
};

/** Strings written to the spill at once (one transaction). */
const APPEND_BATCH = 4096;
/** Strings read from the spill at once when reading on in order (Excel's usual layout). */
const WINDOW = 2048;
/** Strings read at once for a string far from the last one read (out-of-order access). */
const SMALL_WINDOW = 32;

/**
 * A workbook's shared-strings table: the first strings in memory (up to the bounds), the rest in
 * the spill. Writers store strings in the order a sheet first uses them, so a sheet read top to
 * bottom asks for them mostly in order: reads from the spill go through a window of consecutive
 * strings, moved forward when a row asks past it.
 */
export class SharedStrings {
  readonly #options: SharedStringsOptions;
  readonly #memory: string[] = [];
  #memoryChars = 0;
  #count = 0;
  #spill: StringSpill | undefined;
  #pending: string[] = [];
  #window: string[] = [];
  #windowStart = 0;

  constructor(options: SharedStringsOptions = DEFAULT_SHARED_STRINGS) {
    this.#options = options;
  }

  get size(): number {
    return this.#count;
  }

  /** Whether strings went to the spill. */
  get spilled(): boolean {
    return this.#spill !== undefined;
  }

  add(text: string): void {
    const o = this.#options;
    if (
      this.#spill === undefined &&
      this.#memory.length < o.maxMemoryStrings &&
      this.#memoryChars + text.length <= o.maxMemoryChars
    ) {
      this.#memory.push(text);
      this.#memoryChars += text.length;
      this.#count++;
      return;
    }
    if (this.#spill === undefined) {
      if (o.spill === undefined) {
        throw new FileFormatError(
          `its shared strings take more than ${o.maxMemoryStrings} strings or ${o.maxMemoryChars} characters, which this reader holds only with a scratch folder`,
        );
      }
      this.#spill = o.spill();
    }
    this.#pending.push(text);
    this.#count++;
    if (this.#pending.length >= APPEND_BATCH) this.#flush();
  }

  /** Every string added is readable (call once the shared-strings part is read). */
  finish(): void {
    this.#flush();
  }

  /** The string at `index`, or undefined when the table has none there. */
  get(index: number): string | undefined {
    if (index < this.#memory.length) return this.#memory[index];
    if (this.#spill === undefined || index >= this.#count || index < 0) return undefined;
    const at = index - this.#windowStart;
    if (at >= 0 && at < this.#window.length) return this.#window[at];
    // Reading on past the window: the next window; elsewhere: a few strings from there.
    const onward = at >= this.#window.length && at < this.#window.length + WINDOW;
    this.#windowStart = index;
    this.#window = this.#spill.range(index, index + (onward ? WINDOW : SMALL_WINDOW));
    return this.#window[0];
  }

  discard(): void {
    this.#spill?.discard();
    this.#spill = undefined;
    this.#window = [];
    this.#pending = [];
  }

  #flush(): void {
    if (this.#pending.length === 0 || this.#spill === undefined) return;
    this.#spill.append(this.#count - this.#pending.length, this.#pending);
    this.#pending = [];
  }
}
