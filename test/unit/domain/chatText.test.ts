/**
 * Names in a notification's text (src/domain/chatText.ts): a code span with `&`, `<`, `>` as
 * entities; prose with those and every `@` made inert. Through the daemon and a real receiver:
 * test/notifications/webhook.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { chatName, chatProse } from '../../../src/domain/chatText.ts';
import { fileNotification } from '../../../src/domain/notification.ts';

describe('a name in a chat tool’s text', () => {
  it('is a code span that neither mentions, links nor closes early', () => {
    expect(chatName('stock.csv')).toBe('`stock.csv`');
    expect(chatName('<!channel>.csv')).toBe('`&lt;!channel&gt;.csv`');
    expect(chatName('<@U024BE7LH>.csv')).toBe('`&lt;@U024BE7LH&gt;.csv`');
    expect(chatName('<http://x|y>')).toBe('`&lt;http://x|y&gt;`');
    expect(chatName('@here.csv')).toBe('`@here.csv`');
    expect(chatName('a`b``c')).toBe('`a\u02cbb\u02cb\u02cbc`');
    expect(chatName('Fish & Chips')).toBe('`Fish &amp; Chips`');
    expect(chatName('x\n\x1b[2J.csv')).toBe('`x\\n\\x1B[2J.csv`');
  });

  it('in prose, & < > are entities and no @ mentions anyone', () => {
    expect(chatProse('found @here, @channel and <!everyone> & more')).toBe(
      'found @\u2060here, @\u2060channel and &lt;!everyone&gt; &amp; more',
    );
    expect(chatProse('plain words stay plain')).toBe('plain words stay plain');
  });

  it('is how a failed file is told', () => {
    const n = fileNotification(
      {
        file: '<!channel>.csv',
        storedAs: 'x',
        ledgerId: 1,
        outcome: 'failed',
        kind: null,
        rowsRead: 0,
        rowsAccepted: 0,
        rowsRejected: 0,
        reason: 'no columns naming a kind (found @all)',
        report: 'failed/x.report.json',
      },
      0,
    );
    expect(n?.text).toBe(
      'Inbox file `&lt;!channel&gt;.csv` failed: no columns naming a kind (found @\u2060all). Nothing of it was applied.',
    );
    expect(n?.details.file).toBe('<!channel>.csv');
  });
});
