/**
 * HTML made safe by construction: every value put into an `html` template is escaped, unless it
 * is itself Html (a fragment built the same way). There is no other way to make Html, so no
 * value read from state.db, a file name or a report can ever become markup.
 */
export class Html {
  readonly #text: string;

  private constructor(text: string) {
    this.#text = text;
  }

  toString(): string {
    return this.#text;
  }

  /** Only for the template functions below. */
  static of(text: string): Html {
    return new Html(text);
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe in element content and in quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** What a template takes: text and numbers (escaped), Html, lists of them; null/undefined/false are nothing. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** The template tag: `html\`<td>${name}</td>\`` escapes `name`. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return Html.of(out);
}

/** A path with query parameters, each part encoded (for href and action attributes). */
export function url(path: string, query: Record<string, string | number | undefined> = {}): string {
  const q = Object.entries(query)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return q === '' ? path : `${path}?${q}`;
}
