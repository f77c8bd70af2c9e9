/**
 * Text that came from outside — an inbox file's name or rows, a pause reason, the portal's
 * answers — may hold characters a terminal or a chat tool obeys instead of showing: ESC starts a
 * terminal's escape sequences (`\e]0;title\a` retitles the window, `\e[2J` clears it), a newline
 * forges a line of output, U+202E turns the rest of a line around. Where such text is shown to a
 * person, these characters are written as escapes instead: `\t`, `\n`, `\r`, `\xHH` for the other
 * C0 and C1 controls and DEL, `\uHHHH` for the invisible format characters (bidirectional
 * overrides and isolates, zero-width characters, the line and paragraph separators, the BOM).
 * Everything else, any script and any emoji, is shown as it is.
 */
const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escapeOne(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`
    : `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The text with every control and invisible format character written as an escape. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, escapeOne);
}
