import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FileFormatError } from '../../../src/inventory/parse/records.ts';
import { parseXml, type XmlHandlers } from '../../../src/inventory/parse/workbook/xml.ts';

/**
 * The XML reader of a workbook's parts (htmlparser2's tokenizer in XML mode, held to XML's
 * structure): what the handlers see, fed in chunks cut anywhere — inside names, attribute values,
 * entities, CDATA, between CR and LF — and what is a bad part.
 */

const LIMITS = { maxRunChars: 1000, maxDepth: 8 };

type Event = ['open', string, Record<string, string>] | ['text', string] | ['close', string];

/** The events of `xml` fed as `pieces` chunks (bytes, so a character may be cut too). */
async function events(xml: string, pieces: number, attributes?: ReadonlySet<string>) {
  const bytes = Buffer.from(xml);
  const size = Math.max(1, Math.ceil(bytes.length / pieces));
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  const seen: Event[] = [];
  const handlers: XmlHandlers = {
    ...(attributes === undefined ? {} : { attributes }),
    open: (name, a) => seen.push(['open', name, { ...a }]),
    text: (t) => {
      // Runs of text are handed on whole; join what one element's runs make (CDATA apart).
      const last = seen.at(-1);
      if (last?.[0] === 'text') last[1] += t;
      else seen.push(['text', t]);
    },
    close: (name) => seen.push(['close', name]),
  };
  for await (const _ of parseXml(Readable.from(chunks), 'part.xml', handlers, LIMITS));
  return seen;
}

async function failure(xml: string): Promise<string> {
  const err = await events(xml, 1).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FileFormatError);
  return (err as Error).message;
}

const DOC =
  '<?xml version="1.0" encoding="UTF-8"?>\r\n<!-- a comment < with > marks -->' +
  '<x:sst xmlns:x="urn:x" count="2"><si a=\'1 &amp; 2\' b="&lt;&#x41;&#66;"><t>Ä &amp; B &lt; C&#13;</t></si>' +
  '<si><t><![CDATA[<raw> & ]]></t><t>line\r\nbreak\rend</t><e/></si></x:sst>\n';

describe('the XML of a workbook part', () => {
  it('hands on names, attributes and text whole, however the chunks fall', async () => {
    const whole = await events(DOC, 1);
    expect(whole).toEqual([
      ['open', 'sst', { 'xmlns:x': 'urn:x', count: '2' }],
      ['open', 'si', { a: '1 & 2', b: '<AB' }],
      ['open', 't', {}],
      ['text', 'Ä & B < C\r'],
      ['close', 't'],
      ['close', 'si'],
      ['open', 'si', {}],
      ['open', 't', {}],
      ['text', '<raw> & '],
      ['close', 't'],
      ['open', 't', {}],
      ['text', 'line\nbreak\nend'],
      ['close', 't'],
      ['open', 'e', {}],
      ['close', 'e'],
      ['close', 'si'],
      ['close', 'sst'],
    ]);
    for (const pieces of [2, 3, 7, 31, 97, DOC.length]) {
      expect(await events(DOC, pieces), `${pieces} chunks`).toEqual(whole);
    }
  });

  it('reads only the attributes asked for', async () => {
    const seen = await events(
      '<row r="2" spans="1:2" x14ac:dyDescent="0.25"><c r="A2" t="s"/></row>',
      5,
      new Set(['r', 't']),
    );
    expect(seen.filter((e) => e[0] === 'open')).toEqual([
      ['open', 'row', { r: '2' }],
      ['open', 'c', { r: 'A2', t: 's' }],
    ]);
  });

  it('refuses a part that is not well-formed, saying why', async () => {
    expect(await failure('<a><b>1</a></b>')).toMatch(
      /^its part part\.xml is not well-formed XML \(<\/a> where <\/b> was due\)/,
    );
    expect(await failure('<a><b>1</b>')).toMatch(/<a> is never closed/);
    expect(await failure('<a/></a>')).toMatch(/<\/a> closes nothing/);
    expect(await failure('<a/><b/>')).toMatch(/a second root element/);
    expect(await failure('<a/>text')).toMatch(/text outside the root element/);
    expect(await failure('<a x=1/>')).toMatch(/attribute x of <a> has no quoted value/);
    expect(await failure('<a x="1" x="2"/>')).toMatch(/attribute x appears twice in <a>/);
    expect(await failure('<!-- nothing -->')).toMatch(/it holds no element/);
    expect(await failure('<a><b><c><d><e><f><g><h><i/></h></g></f></e></d></c></b></a>')).toMatch(
      /nests elements deeper than 8/,
    );
  });

  it('refuses a tag, text, comment or CDATA section longer than the limit', async () => {
    const long = 'y<'.repeat(600);
    expect(await failure(`<a>${'x'.repeat(1200)}</a>`)).toMatch(
      /holds a cell, string, tag or comment longer than 1000 characters/,
    );
    expect(await failure(`<a b="${'x'.repeat(1200)}"/>`)).toMatch(/longer than 1000 characters/);
    // `<` inside: no run between two `<` is long, the token is.
    for (const xml of [`<a><!--${long}--></a>`, `<a><![CDATA[${long}]]></a>`]) {
      const err = await events(xml, 40).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(/longer than 1000 characters/);
    }
  });
});
