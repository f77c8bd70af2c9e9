import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileStockRules, type StockRule } from '../../src/domain/stockRules.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { rederiveOffers, setStockRules } from '../../src/state/stock/ruleOffers.ts';
import { offerSql } from '../../src/state/stock/ruleSql.ts';
import { seedDesiredStock } from '../helpers/desiredStock.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

/**
 * The re-evaluation of every key runs the rules as SQL (issue #29, point 5): it must give what
 * the rules give, key by key, for SKUs of every kind of character the rules compare.
 */

let box: Sandbox;
let db: StateDb;
afterEach(async () => {
  db?.close();
  await box.cleanup();
});

const SKUS = [
  'SKU-0001',
  'sku-0017',
  'Sku-1007',
  'DISC-9',
  'disc-x',
  'A_B',
  'AXB',
  'A%B',
  'AB',
  'A\\B',
  "O'NEIL-7",
  'ÄPFEL-7',
  'äpfel-7',
  '\u212Aelvin', // KELVIN SIGN: lower-cases to an ASCII k in JavaScript, not in SQLite
  'kelvin',
  'İ7',
  'x?7',
];
const RULES: StockRule[] = [
  { sku: 'disc-*', exclude: true },
  { sku: 'a_b', max: 1 },
  { sku: 'a%b', max: 2 },
  { sku: 'a\\b', max: 3 },
  { sku: "o'neil-?", percent: 33 },
  { sku: 'k*', buffer: 4 },
  { sku: '??', max: 5 },
  { kind: 'dc', dc: 'DC-LON', buffer: 2, percent: 50 },
  { kind: 'factory', sku: 'sku-??17', buffer: 5, percent: 50, max: 100 },
  { sku: '*7', max: 500 },
];

/** Rules offerSql does not compile (a pattern beyond ASCII): every key through the function. */
const UNCOMPILED: StockRule[] = [{ sku: 'äpfel-*', max: 9 }, ...RULES];

describe('the rules as SQL', () => {
  for (const [name, rules, compiled] of [
    ['compiled', RULES, true],
    ['left to the function', UNCOMPILED, false],
  ] as const) {
    it(`give every key what the rules give it (${name})`, async () => {
      box = makeSandbox('rule-sql');
      db = openStateDb(join(box.dataDir, 'state.db'));
      const quantities = [0, 3, 7, 250, 999];
      const factory = SKUS.flatMap((sku, i) => ({ dc: '', sku, quantity: quantities[i % 5]! }));
      const dc = ['DC-LON', 'DC-MAN'].flatMap((code) =>
        SKUS.map((sku, i) => ({ dc: code, sku, quantity: quantities[(i + 2) % 5]! * 3 })),
      );
      await seedDesiredStock(db, box.dataDir, 'factory', factory, 'test', Date.now());
      await seedDesiredStock(db, box.dataDir, 'dc', dc, 'test', Date.now());
      const sql = offerSql(rules, { kind: 'k', dc: 'd', sku: 's', erp: 'q' }, 'f');
      expect(sql !== null).toBe(compiled);

      setStockRules(db, rules);
      const result = rederiveOffers(db, Date.now());
      expect(result.ran).toBe(true);
      const want = compileStockRules(rules);
      const stored = db
        .prepare(
          'SELECT kind, dc, sku, erp_quantity AS erp, quantity, rule, excluded FROM desired_stock',
        )
        .all() as Array<{
        kind: 'factory' | 'dc';
        dc: string;
        sku: string;
        erp: number;
        quantity: number;
        rule: string | null;
        excluded: number;
      }>;
      expect(stored).toHaveLength(SKUS.length * 3);
      for (const row of stored) {
        expect({
          key: `${row.kind}:${row.dc}:${row.sku}`,
          quantity: row.quantity,
          rule: row.rule,
          excluded: row.excluded === 1,
        }).toEqual({
          key: `${row.kind}:${row.dc}:${row.sku}`,
          ...want.offer(row.kind, row.dc, row.sku, row.erp),
        });
      }
      // Worked out again with the same rules: nothing differs.
      expect(rederiveOffers(db, Date.now(), { force: true }).changed).toBe(0);
    });
  }
});
