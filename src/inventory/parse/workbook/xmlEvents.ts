import { decodeXML } from 'entities';
import { QuoteType, Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { FileFormatError } from '../records.ts';
import { localName } from './opc.ts';

/** What a part's reader does with the XML as it streams; names are local (prefix dropped). */
export interface XmlHandlers {
  /** The attributes `open` reads (qualified names); unset: all of them. */
  readonly attributes?: ReadonlySet<string>;
  open(name: string, attributes: Readonly<Record<string, string>>): void;
  /**
   * Text of the element open last, each run between two tags at once (entities decoded; a CDATA
   * section is a run of its own).
   */
  text(text: string): void;
  close(name: string): void;
}

export interface XmlLimits {
  /**
   * Most characters between two `<`: one text (a cell, a string) or one tag with its attributes;
   * and most characters of any one token the tokenizer must hold whole (a tag, a comment, a CDATA
   * section, a processing instruction). A longer one (a 300 MB cell that compresses to nothing)
   * ends the reading instead of filling memory.
   */
  readonly maxRunChars: number;
  /** Deepest element nesting (a worksheet needs six levels). */
  readonly maxDepth: number;
}

/** Attributes of an element that has none (shared: handlers only read them). */
const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

/**
 * htmlparser2's tokenizer speaks in positions of the text written so far; this turns them into
 * names, attributes and text for the handlers, keeping the chunks a position may still point
 * into (at most one token's worth: a token held longer than `maxRunChars` is a bad file), and
 * checks the structure: elements closed in the order opened, no deeper than `maxDepth`, one
 * root, attribute values quoted, no attribute twice.
 */
export class XmlEvents implements TokenizerCallbacks {
  readonly #tokenizer: Tokenizer;
  readonly #part: string;
  readonly #handlers: XmlHandlers;
  readonly #limits: XmlLimits;
  /** The chunks positions may still point into; `#base` is the position of the first's start. */
  readonly #chunks: string[] = [];
  #base = 0;
  /** Names of the open elements, outermost first, and their local names. */
  readonly #open: string[] = [];
  readonly #locals: string[] = [];
  #roots = 0;
  #name = '';
  #attributes: Record<string, string> | undefined;
  #attribute = '';
  /** Whether the attribute being read is one the handlers read. */
  #wanted = true;
  #value = '';
  /** Text since the last tag, handed on (its entities decoded) at the next one. */
  #text = '';
  readonly #wants: ReadonlySet<string> | undefined;
  /** The longest name in `#wants`: a longer attribute name is passed over unread. */
  readonly #longestWanted: number;

  constructor(part: string, handlers: XmlHandlers, limits: XmlLimits) {
    this.#part = part;
    this.#handlers = handlers;
    this.#limits = limits;
    this.#wants = handlers.attributes;
    this.#longestWanted = Math.max(0, ...[...(this.#wants ?? [])].map((n) => n.length));
    // Entities are decoded here, once a text or value is whole (the tokenizer then skips ahead
    // to the next `<` or quote instead of looking at each character for `&`).
    this.#tokenizer = new Tokenizer({ xmlMode: true, decodeEntities: false }, this);
  }

  write(text: string): void {
    if (text === '') return;
    this.#chunks.push(text);
    this.#tokenizer.write(text);
    // What is still held but the newest chunk belongs to one unfinished token.
    let held = 0;
    for (let i = 1; i < this.#chunks.length; i++) held += this.#chunks[i]!.length;
    if (held - text.length > this.#limits.maxRunChars) throw tooLong(this.#part, this.#limits);
  }

  end(): void {
    this.#tokenizer.end();
  }

  onopentagname(start: number, end: number): void {
    this.#flushText();
    this.#name = this.#slice(start, end);
    this.#attributes = undefined;
  }

  onattribname(start: number, end: number): void {
    const wants = this.#wants;
    if (wants !== undefined && end - start > this.#longestWanted) {
      this.#attribute = '';
      this.#wanted = false;
      return;
    }
    this.#attribute = this.#slice(start, end);
    this.#wanted = wants === undefined || wants.has(this.#attribute);
  }

  onattribdata(start: number, end: number): void {
    if (this.#wanted) this.#value += this.#slice(start, end);
  }

  onattribentity(): void {}

  onattribend(quote: QuoteType): void {
    if (quote !== QuoteType.Double && quote !== QuoteType.Single) {
      this.#malformed(`an attribute ${this.#attribute} of <${this.#name}> has no quoted value`);
    }
    if (!this.#wanted) return;
    this.#attributes ??= {};
    const attributes = this.#attributes;
    if (Object.hasOwn(attributes, this.#attribute)) {
      this.#malformed(`attribute ${this.#attribute} appears twice in <${this.#name}>`);
    }
    const value = this.#value;
    attributes[this.#attribute] = value.includes('&') ? decodeXML(value) : value;
    this.#value = '';
  }

  onopentagend(): void {
    this.#start(false);
  }

  onselfclosingtag(): void {
    this.#start(true);
  }

  onclosetag(start: number, end: number): void {
    this.#flushText();
    const open = this.#open.pop();
    if (open === undefined || !this.#holds(start, end, open)) {
      const name = this.#slice(start, end);
      this.#malformed(
        open === undefined ? `</${name}> closes nothing` : `</${name}> where </${open}> was due`,
      );
    }
    this.#handlers.close(this.#locals.pop()!);
  }

  /** Text, whole or a piece of it (at the end of a chunk). */
  ontext(start: number, end: number): void {
    this.#text += this.#slice(start, end);
  }

  ontextentity(): void {}

  oncdata(start: number, end: number, offset: number): void {
    this.#flushText();
    if (this.#open.length === 0) this.#malformed('CDATA outside the root element');
    this.#handlers.text(this.#slice(start, end - offset));
  }

  oncomment(): void {
    this.#flushText();
  }

  ondeclaration(): void {
    this.#flushText();
  }

  onprocessinginstruction(): void {
    this.#flushText();
  }

  onend(): void {
    this.#flushText();
    const open = this.#open.at(-1);
    if (open !== undefined) this.#malformed(`<${open}> is never closed`);
    if (this.#roots === 0) this.#malformed('it holds no element');
  }

  #start(selfClosing: boolean): void {
    const name = this.#name;
    if (this.#open.length === 0 && this.#roots++ > 0) this.#malformed('a second root element');
    if (this.#open.length >= this.#limits.maxDepth) {
      throw new FileFormatError(
        `its part ${this.#part} nests elements deeper than ${this.#limits.maxDepth}`,
      );
    }
    const local = localName(name);
    this.#handlers.open(local, this.#attributes ?? NO_ATTRIBUTES);
    this.#attributes = undefined;
    if (selfClosing) {
      this.#handlers.close(local);
      return;
    }
    this.#open.push(name);
    this.#locals.push(local);
  }

  /** Hands on the text since the last tag, its entities decoded (`&amp;`, `&#10;`, …). */
  #flushText(): void {
    const text = this.#text;
    if (text === '') return;
    this.#text = '';
    if (this.#open.length === 0) {
      if (text.trim() !== '') this.#malformed('text outside the root element');
      return;
    }
    this.#handlers.text(text.includes('&') ? decodeXML(text) : text);
  }

  /** Whether the text between two positions is `name` (without making a string of it). */
  #holds(start: number, end: number, name: string): boolean {
    if (end - start !== name.length) return false;
    const chunks = this.#chunks;
    while (start - this.#base >= chunks[0]!.length) this.#base += chunks.shift()!.length;
    const at = start - this.#base;
    if (end - this.#base <= chunks[0]!.length) return chunks[0]!.startsWith(name, at);
    return this.#slice(start, end) === name;
  }

  /** The text between two positions; drops the chunks before `start` (no longer needed). */
  #slice(start: number, end: number): string {
    if (start === end) return '';
    const chunks = this.#chunks;
    while (start - this.#base >= chunks[0]!.length) this.#base += chunks.shift()!.length;
    let text = chunks[0]!.slice(start - this.#base, end - this.#base);
    while (end - this.#base > chunks[0]!.length) {
      this.#base += chunks.shift()!.length;
      text += chunks[0]!.slice(0, end - this.#base);
    }
    return text;
  }

  #malformed(reason: string): never {
    throw new FileFormatError(`its part ${this.#part} is not well-formed XML (${reason})`);
  }
}

/** A token or run past `maxRunChars`. */
export function tooLong(part: string, limits: Pick<XmlLimits, 'maxRunChars'>): FileFormatError {
  return new FileFormatError(
    `its part ${part} holds a cell, string, tag or comment longer than ${limits.maxRunChars} characters (the INBOX_MAX_RECORD_BYTES limit)`,
  );
}
