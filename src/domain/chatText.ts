import { escapeControls } from './controlChars.ts';

/**
 * A notification's `text` is shown by a chat tool's incoming webhook, which formats it: Slack
 * reads `<!channel>`, `<@U123>` and `<http://x|y>` as a mention or a link, Mattermost turns
 * `<!channel>` into `@channel` and notifies on `@here`, `@channel`, `@all` and `@name`, all of
 * them make links of addresses and read `*`, `_` and backticks as markup. What came from
 * outside (an inbox file's name, a header it quotes, an order number) must be shown as text, so:
 *
 * - a name is a code span: chat tools show it literally, mention and link markup included;
 *   a backtick in it is written as `ˋ` (U+02CB), which cannot end the span;
 * - `&`, `<` and `>` are written `&amp;`, `&lt;`, `&gt;`, as Slack asks of text that is not markup
 *   (Slack and Teams show them as the characters; Mattermost, whose code spans show entities as
 *   written, shows a name holding them with the entities) and as keeps Mattermost's
 *   `<!channel>` rewriting away;
 * - prose around names that may quote what came from outside (a file's refusal reason) has the
 *   same three characters written so, and a word joiner (U+2060, invisible) after each `@`,
 *   which no chat tool reads as a mention;
 * - control characters are escaped as on a terminal (controlChars.ts).
 *
 * `details` carry the values as they are: a receiver of one's own reads those.
 */

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
const entities = (text: string) => text.replace(/[&<>]/g, (c) => ENTITIES[c]!);

/** A name in a notification's text: a code span a chat tool shows as it is. */
export function chatName(name: string): string {
  return `\`${entities(escapeControls(name)).replaceAll('`', '\u02cb')}\``;
}

/** Prose that may quote what came from outside: no mention, no link markup. */
export function chatProse(text: string): string {
  return entities(escapeControls(text)).replaceAll('@', '@\u2060');
}
