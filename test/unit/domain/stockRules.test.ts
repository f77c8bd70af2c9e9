import { describe, expect, it } from 'vitest';
import {
  compileStockRules,
  mapLocation,
  offeredQuantity,
  ruleLabel,
  rulesFingerprint,
  type StockRule,
} from '../../../src/domain/stockRules.ts';

/** offered = min(max, floor(max(0, q − buffer) × percent / 100)), per effect and together. */
describe('offeredQuantity (effects)', () => {
  it.each([
    ['no effect: as is', {}, 17, 17],
    ['buffer holds units back', { buffer: 2 }, 17, 15],
    ['buffer larger than the stock gives 0, never below', { buffer: 5 }, 3, 0],
    ['buffer on 0 stays 0', { buffer: 5 }, 0, 0],
    ['percent rounds down', { percent: 50 }, 17, 8],
    ['percent 0 offers nothing', { percent: 0 }, 17, 0],
    ['percent 100 is as is', { percent: 100 }, 17, 17],
    ['max caps', { max: 10 }, 17, 10],
    ['max above the stock changes nothing', { max: 100 }, 17, 17],
    ['max 0 offers nothing', { max: 0 }, 17, 0],
    ['buffer first, then percent', { buffer: 5, percent: 50 }, 17, 6],
    ['then max', { buffer: 5, percent: 50, max: 5 }, 17, 5],
    ['the docs/stock-rules.md example on 300', { buffer: 5, percent: 50, max: 100 }, 300, 100],
    ['the docs/stock-rules.md example on 15', { buffer: 5, percent: 50, max: 100 }, 15, 5],
  ] as const)('%s', (_, rule: StockRule, q, offered) => {
    expect(offeredQuantity(rule, q)).toBe(offered);
  });

  it('is exact for the largest quantity', () => {
    expect(offeredQuantity({ percent: 99 }, 2_147_483_647)).toBe(2_126_008_810);
    expect(offeredQuantity({ percent: 33, buffer: 1 }, 2_147_483_647)).toBe(708_669_603);
  });
});

describe('compileStockRules (matchers, first match wins)', () => {
  const rules: StockRule[] = [
    { sku: 'DISC-*', exclude: true },
    { kind: 'dc', dc: 'DC-LON', buffer: 2 },
    { sku: 'SKU-00001*', buffer: 5, percent: 50, max: 100 },
    { kind: 'factory', sku: 'F-?', max: 1 },
    { sku: 'exact-1', percent: 10 },
  ];
  const c = compileStockRules(rules);

  it('no rule matches: offered as is, no rule named', () => {
    expect(c.offer('factory', '', 'OTHER', 9)).toEqual({
      quantity: 9,
      excluded: false,
      rule: null,
    });
    expect(c.match('dc', 'DC-BER', 'OTHER')).toBe(-1);
  });

  it('exclude: the key is out, its ERP quantity kept for the record', () => {
    expect(c.offer('factory', '', 'DISC-9', 4)).toEqual({
      quantity: 4,
      excluded: true,
      rule: 'rules[0]: sku DISC-* → exclude',
    });
    // first match wins: DISC-* at DC-LON is excluded, not buffered
    expect(c.offer('dc', 'DC-LON', 'DISC-1', 9).excluded).toBe(true);
  });

  it('kind and dc: a dc rule never matches factory stock, nor another centre', () => {
    expect(c.offer('dc', 'DC-LON', 'A', 9)).toEqual({
      quantity: 7,
      excluded: false,
      rule: 'rules[1]: kind dc, dc DC-LON → buffer 2',
    });
    expect(c.match('dc', 'DC-BER', 'A')).toBe(-1);
    expect(c.match('factory', '', 'A')).toBe(-1);
    // dc codes compare exactly
    expect(c.match('dc', 'dc-lon', 'A')).toBe(-1);
    expect(c.match('factory', '', 'F-1')).toBe(3);
    expect(c.match('dc', 'DC-BER', 'F-1')).toBe(-1);
  });

  it('sku: wildcards and exact, case-insensitive; the first matching rule applies', () => {
    expect(c.match('factory', '', 'SKU-000012')).toBe(2);
    expect(c.match('factory', '', 'sku-00001')).toBe(2);
    expect(c.match('factory', '', 'SKU-00002')).toBe(-1);
    expect(c.match('dc', 'DC-LON', 'SKU-000012')).toBe(1); // the dc rule comes first
    expect(c.match('factory', '', 'F-12')).toBe(-1); // ? is one character
    expect(c.match('factory', '', 'EXACT-1')).toBe(4);
    expect(c.match('factory', '', 'exact-10')).toBe(-1);
    expect(c.offer('factory', '', 'SKU-000012', 300).quantity).toBe(100);
  });

  it('the memo of the last key never answers for another key', () => {
    const d = compileStockRules([{ dc: 'D1', max: 1 }]);
    expect(d.offer('dc', 'D1', 'S', 5).quantity).toBe(1);
    expect(d.offer('dc', 'D2', 'S', 5).quantity).toBe(5);
    expect(d.offer('factory', '', 'S', 5).quantity).toBe(5);
    expect(d.offer('dc', 'D1', 'S', 5).quantity).toBe(1);
  });

  it('no rules: everything as is', () => {
    const none = compileStockRules([]);
    expect(none.count).toBe(0);
    expect(none.offer('dc', 'X', 'Y', 3)).toEqual({ quantity: 3, excluded: false, rule: null });
  });
});

describe('labels and fingerprints', () => {
  it('names the rule by position, matchers and effects', () => {
    expect(ruleLabel({}, 0)).toBe('rules[0]: every key → as is');
    expect(ruleLabel({ sku: 'A*', buffer: 5, percent: 50, max: 100 }, 2)).toBe(
      'rules[2]: sku A* → buffer 5, percent 50, max 100',
    );
  });

  it('changes with anything that changes an offer or a label, not otherwise', () => {
    const a = rulesFingerprint([{ sku: 'A*', buffer: 1 }]);
    expect(rulesFingerprint([{ sku: 'A*', buffer: 1 }])).toBe(a);
    expect(rulesFingerprint([{ sku: 'A*', buffer: 2 }])).not.toBe(a);
    expect(rulesFingerprint([{ sku: 'A*', buffer: 1, max: 3 }])).not.toBe(a);
    expect(rulesFingerprint([{}, { sku: 'A*', buffer: 1 }])).not.toBe(a);
    expect(rulesFingerprint([])).toBe('[]');
  });
});

describe('mapLocation', () => {
  const locations = { 'WH-LONDON': 'DC-LON', '17': 'DC-BER' };
  it('maps a named ERP code (trimmed, or a JSON integer), leaves the rest for the usual checks', () => {
    expect(mapLocation('WH-LONDON', locations)).toEqual({ value: 'DC-LON', mapped: true });
    expect(mapLocation(' WH-LONDON ', locations)).toEqual({ value: 'DC-LON', mapped: true });
    expect(mapLocation(17, locations)).toEqual({ value: 'DC-BER', mapped: true });
    expect(mapLocation('DC-LON', locations)).toEqual({ value: 'DC-LON', mapped: false });
    expect(mapLocation('wh-london', locations)).toEqual({ value: 'wh-london', mapped: false });
    expect(mapLocation(undefined, locations)).toEqual({ value: undefined, mapped: false });
    expect(mapLocation('toString', locations)).toEqual({ value: 'toString', mapped: false });
  });
});
