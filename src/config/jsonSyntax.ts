/**
 * Where a JSON text stops being JSON, told without quoting it: a settings file can hold a
 * password, and the engine's own message echoes the text around the fault (`Unexpected token
 * 'S', "S3cretPortalPW!…" is not valid JSON`). A small scanner of the JSON grammar (RFC 8259)
 * finds the first fault and names it by line and column (1-based, counted in characters) and by
 * kind only. Called after JSON.parse failed; it never sees a text JSON.parse accepted.
 */

export interface JsonSyntaxFault {
  readonly line: number;
  readonly column: number;
  /** What is wrong, in words that never include the text. */
  readonly problem: string;
}

class Fault extends Error {
  readonly at: number;
  readonly problem: string;

  constructor(at: number, problem: string) {
    super(problem);
    this.at = at;
    this.problem = problem;
  }
}

const WS = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;

/** The first fault of `text` as JSON, or undefined when it is JSON. */
export function findJsonFault(text: string): JsonSyntaxFault | undefined {
  let i = 0;
  const end = () => i >= text.length;
  const skip = () => {
    while (!end() && WS.has(text[i]!)) i++;
  };
  const expect = (what: string) => {
    if (end()) throw new Fault(i, `unexpected end of the file, ${what} expected`);
    throw new Fault(i, `unexpected character, ${what} expected`);
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else expect('a value');
  };
  const string = () => {
    const start = i;
    i++; // the opening quote
    for (;;) {
      if (end()) throw new Fault(start, 'a string that is never closed');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20)
        throw new Fault(i, 'a control character (such as a line break) inside a string');
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          HEX4.lastIndex = i + 2;
          if (!HEX4.test(text)) throw new Fault(i, 'a bad \\u escape in a string');
          i += 6;
        } else if (e !== undefined && ESCAPES.has(e)) i += 2;
        else throw new Fault(i, 'a bad escape in a string');
      } else i++;
    }
  };
  const value = (depth: number): void => {
    if (depth > 10_000) throw new Fault(i, 'nested too deeply');
    skip();
    const c = text[i];
    if (c === '{') {
      i++;
      skip();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        skip();
        if (text[i] !== '"') expect('a property name in double quotes');
        string();
        skip();
        if (text[i] !== ':') expect("':'");
        i++;
        value(depth + 1);
        skip();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        expect("',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      skip();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value(depth + 1);
        skip();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        expect("',' or ']'");
      }
    }
    const word = c === 't' ? 'true' : c === 'f' ? 'false' : c === 'n' ? 'null' : undefined;
    NUMBER.lastIndex = i;
    if (c === '"') string();
    else if (word !== undefined) literal(word);
    else if (c !== undefined && /[-0-9]/.test(c) && NUMBER.test(text)) i = NUMBER.lastIndex;
    else expect('a value');
  };
  try {
    value(0);
    skip();
    if (!end()) throw new Fault(i, 'more after the end of the JSON value');
    return undefined;
  } catch (err) {
    if (!(err instanceof Fault)) throw err;
    return { ...lineColumn(text, err.at), problem: err.problem };
  }
}

/** 1-based line and column of an offset. */
function lineColumn(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf('\n'); k !== -1 && k < at; k = text.indexOf('\n', k + 1)) {
    line++;
    lineStart = k + 1;
  }
  return { line, column: at - lineStart + 1 };
}

/**
 * One line saying why a text is not JSON, without any of it: `not valid JSON at line 3,
 * column 14: unexpected character, ',' or '}' expected`.
 */
export function jsonSyntaxProblem(text: string): string {
  const fault = findJsonFault(text);
  if (fault === undefined) return 'not valid JSON';
  return `not valid JSON at line ${fault.line}, column ${fault.column}: ${fault.problem}`;
}
