// biome-ignore-all lint/suspicious/noThenProperty: the contract names the field `then`
import { describe, expect, it } from 'vitest';
import { presenceSlot, TODAY_SLOT, valueSlot } from '../../../src/config/expr/celEnvironment.ts';
import { dateOf, todayIn } from '../../../src/config/expr/celFunctions.ts';
import { compileExpr, type ExprRole } from '../../../src/config/expr/exprCompile.ts';
import { describeProfilesProblem, profilesFileSchema } from '../../../src/config/profiles.ts';
import { GROUPED_PROFILE } from '../../helpers/groupedProfile.ts';

/** How `number()` reads text in these tests: the project's quantity rules are the reader's. */
const readNumber = (text: string) =>
  /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : 'not a number';

/** Runs an expression with cells given in the order it reads them, and has() answers. */
function run(text: string, cells: string[] = [], asks: boolean[] = [], role: ExprRole = 'text') {
  const r = compileExpr(text, role, readNumber);
  if (!r.ok) throw new Error(r.problem);
  const context: Record<string, unknown> = { [TODAY_SLOT]: new Date('2026-03-10T00:00:00Z') };
  cells.forEach((c, i) => {
    context[valueSlot(i)] = c;
  });
  asks.forEach((a, i) => {
    context[presenceSlot(i)] = a;
  });
  return r.expr.run(context);
}

function problem(profile: object): string {
  const input = { profiles: [{ match: 'ERP-*.csv', ...profile }] };
  const r = profilesFileSchema.safeParse(input);
  if (r.success) throw new Error('unexpectedly valid');
  return describeProfilesProblem(r.error, input);
}

describe('compiling a profile’s expressions', () => {
  it('names the profile, the field and the position of a syntax error', () => {
    expect(problem({ columns: { sku: { expr: "row['Name'] +\n  + )" } } })).toBe(
      'profiles[0] (match "ERP-*.csv"), columns.sku.expr: at 2:3: Unexpected token: PLUS',
    );
  });

  it('an unknown function, a function on the wrong type, a field of the wrong type', () => {
    expect(problem({ when: [{ if: "row['A'].shout()", then: 'skip' }] })).toBe(
      'profiles[0] (match "ERP-*.csv"), when.0.if: at 1:1: found no matching overload for \'string.shout()\'',
    );
    expect(problem({ when: [{ if: "frobnicate(row['A'])", then: 'skip' }] })).toMatch(
      /when\.0\.if: at 1:1: found no matching overload for 'frobnicate\(string\)'/,
    );
    expect(problem({ columns: { sku: { expr: "size(row['A'])" } } })).toBe(
      'profiles[0] (match "ERP-*.csv"), columns.sku.expr: at 1:1: gives int, and this needs text (string)',
    );
    expect(problem({ when: [{ if: "row['A']", then: 'skip' }] })).toMatch(
      /when\.0\.if: at 1:1: gives string, and this needs true or false \(bool\)/,
    );
    expect(problem({ columns: { stock_quantity: { expr: "row['A'] == 'x'" } } })).toMatch(
      /columns\.stock_quantity\.expr: at 1:1: gives bool, and this needs a number or text/,
    );
  });

  it('cells are read by constants; names the compiler gives are refused; RE2 only', () => {
    expect(problem({ columns: { sku: { expr: "row[row['A']]" } } })).toMatch(
      /columns\.sku\.expr: at 1:1: row is read by a header name in quotes/,
    );
    expect(problem({ columns: { sku: { expr: 'col[0]' } } })).toMatch(/1-based position/);
    expect(problem({ columns: { sku: { expr: 'cell.ABCD' } } })).toMatch(/column letter, A to XFD/);
    expect(problem({ columns: { sku: { expr: '__sync_v0' } } })).toMatch(/unknown variable/);
    expect(problem({ when: [{ if: "row['A'].matches('a(?=b)')", then: 'skip' }] })).toMatch(
      /when\.0\.if: at 1:18: matches\(\) pattern is not RE2 syntax/,
    );
    expect(problem({ headerLine: 0, columns: { sku: { expr: "row['Item'] + cell.B" } } })).toBe(
      'profiles[0] (match "ERP-*.csv"), columns.sku.expr: reads row[\'Item\'], and headerLine 0 means the file has no header: read cells by letter (cell.B) or position (col[2])',
    );
  });

  it('accepts what the contract shows, and the fields of a products file', () => {
    const r = profilesFileSchema.safeParse({
      profiles: [
        {
          match: 'grouped-*.xlsx',
          ...GROUPED_PROFILE,
          sheet: 'Stock',
          headerLine: 2,
        },
        {
          match: 'products-*.csv',
          columns: {
            name: { expr: "row['Title'].trim()" },
            'price@UK': { expr: "row['Price GBP']" },
            'stock@DC-LON': { letter: 'F' },
          },
        },
      ],
    });
    expect(r.success).toBe(true);
  });
});

describe('the functions of an expression', () => {
  it('strings: trim, lowerAscii, upperAscii, replace, split, substring, contains, startsWith, endsWith, matches, size, in', () => {
    expect(run("row['A'].trim().upperAscii()", [' ab '])).toBe('AB');
    expect(run("row['A'].lowerAscii()", ['AbC'])).toBe('abc');
    expect(run("row['A'].replace(' Unit(s)', '')", ['8,277 Unit(s)'])).toBe('8,277');
    expect(run("row['A'].split(',')[1]", ['A-1,A-2'])).toBe('A-2');
    expect(run("row['A'].substring(1, 3)", ['ABCD'])).toBe('BC');
    const cond = (text: string, cell: string) => run(text, [cell], [], 'condition');
    expect(cond("row['A'].contains('-')", 'A-1')).toBe(true);
    expect(cond("row['A'].startsWith('A') && row['A'].endsWith('1')", 'A-1')).toBe(true);
    expect(cond("row['A'].matches('^[A-Z]-[0-9]+(,[A-Z]-[0-9]+)+$')", 'A-1,A-2,A-3')).toBe(true);
    expect(cond("row['A'].matches('^[A-Z]-[0-9]+(,[A-Z]-[0-9]+)+$')", 'UK 2,5 N')).toBe(false);
    expect(cond("size(row['A']) == 3 && row['A'] in ['abc', 'x']", 'abc')).toBe(true);
  });

  it('number, min, max; a text that is no number fails the row, quoting nothing of it', () => {
    expect(run("number(row['A']) + 0.5", ['2'], [], 'quantity')).toBe(2.5);
    expect(run("min(number(row['A']), 3.0)", ['7'], [], 'quantity')).toBe(3);
    expect(run('max(2, 5)', [], [], 'quantity')).toBe(5n);
    expect(run("max('a', 'b')")).toBe('b');
    expect(() => run("number(row['A'])", ['n/a private'], [], 'quantity')).toThrow(
      expect.objectContaining({
        code: 'number_unreadable',
        summary: 'number() cannot read the text as a number (not a number)',
      }),
    );
  });

  it('date with YYYY MM DD HH mm, compared with <; today in the time zone', () => {
    expect(dateOf('3/7/2026', 'MM/DD/YYYY').toISOString()).toBe('2026-03-07T00:00:00.000Z');
    expect(dateOf(' 2026-03-07 14:05 ', 'YYYY-MM-DD HH:mm').toISOString()).toBe(
      '2026-03-07T14:05:00.000Z',
    );
    expect(() => dateOf('02/30/2026', 'MM/DD/YYYY')).toThrow(
      /does not fit the layout MM\/DD\/YYYY/,
    );
    expect(() => dateOf('2026-13-01', 'YYYY-MM-DD')).toThrow(/does not fit/);
    expect(() => dateOf('2026', 'YYYY')).toThrow(/lacks one of YYYY, MM and DD/);
    const past = "date(row['A'], 'DD.MM.YYYY') < today()";
    expect(run(past, ['09.03.2026'], [], 'condition')).toBe(true);
    expect(run(past, ['10.03.2026'], [], 'condition')).toBe(false);
    // 23:30 UTC on the 9th is already the 10th in Berlin.
    const now = new Date('2026-03-09T23:30:00Z');
    expect(todayIn('Europe/Berlin', now).toISOString()).toBe('2026-03-10T00:00:00.000Z');
    expect(todayIn('UTC', now).toISOString()).toBe('2026-03-09T00:00:00.000Z');
  });

  it('has(row[…]) is whether the file has the column; cell and col read by place', () => {
    expect(run("has(row['Farbe']) ? row['Farbe'] : 'none'", ['rot'], [true])).toBe('rot');
    expect(run("has(row['Farbe']) ? row['Farbe'] : 'none'", [''], [false])).toBe('none');
    const r = compileExpr("cell.bm + col[3] + row.Name + cell['A']", 'text', readNumber);
    expect(r.ok && r.expr.reads).toEqual([
      { by: 'letter', letter: 'BM' },
      { by: 'position', position: 3 },
      { by: 'name', name: 'Name' },
      { by: 'letter', letter: 'A' },
    ]);
  });
});
