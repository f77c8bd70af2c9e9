import { compileGlob, type GlobMatcher } from './glob.ts';
import type { StockKind } from './stock.ts';

/**
 * Stock rules (STOCK_RULES_FILE): what is offered on the portal when the ERP counts `q` units.
 * Pure: plain data in, plain data out. The file's schema is src/config/stockRulesFile.ts; these are
 * the shapes it produces.
 *
 * For each key the first rule whose matchers all match applies (no match: offered as is):
 *   offered = min(max, floor(max(0, q − buffer) × percent / 100))
 * and a rule with `exclude` takes the key out: it is never pushed.
 */
export interface StockRule {
  /** Matches factory or DC stock only; unset: both. */
  readonly kind?: 'factory' | 'dc' | undefined;
  /** A portal distribution-centre code, compared exactly; never matches factory stock. */
  readonly dc?: string | undefined;
  /** A SKU, exact or with `*` (any run) and `?` (one character), case-insensitive. */
  readonly sku?: string | undefined;
  readonly exclude?: boolean | undefined;
  /** Units held back (default 0). */
  readonly buffer?: number | undefined;
  /** Whole percent offered of what remains, 0 to 100 (default 100). */
  readonly percent?: number | undefined;
  /** The most ever offered. */
  readonly max?: number | undefined;
}

/** ERP location code → portal distribution-centre code. */
export type LocationMap = Readonly<Record<string, string>>;

export interface StockRuleSet {
  readonly locations: LocationMap;
  readonly rules: readonly StockRule[];
}

/** No rules: everything is offered as the ERP counts it, no location is mapped. */
export const NO_STOCK_RULES: StockRuleSet = Object.freeze({
  locations: Object.freeze({}),
  rules: Object.freeze([]),
});

/** The offered quantity for `quantity` under one rule's effects (`exclude` aside). */
export function offeredQuantity(rule: StockRule, quantity: number): number {
  const afterBuffer = Math.max(0, quantity - (rule.buffer ?? 0));
  const percent = rule.percent ?? 100;
  // Whole numbers below 2^31 × 100: exact in a double.
  const share = percent === 100 ? afterBuffer : Math.floor((afterBuffer * percent) / 100);
  return rule.max === undefined ? share : Math.min(rule.max, share);
}

/**
 * How a rule is named where its effect is shown (state.db's desired_stock.rule, reports, `plan`,
 * `explain`): its position in the file, its matchers and its effects —
 * `rules[1]: kind dc, dc DC-LON → buffer 2`.
 */
export function ruleLabel(rule: StockRule, index: number): string {
  const matchers: string[] = [];
  if (rule.kind !== undefined) matchers.push(`kind ${rule.kind}`);
  if (rule.dc !== undefined) matchers.push(`dc ${rule.dc}`);
  if (rule.sku !== undefined) matchers.push(`sku ${rule.sku}`);
  const effects: string[] = [];
  if (rule.exclude === true) effects.push('exclude');
  else {
    if (rule.buffer !== undefined) effects.push(`buffer ${rule.buffer}`);
    if (rule.percent !== undefined) effects.push(`percent ${rule.percent}`);
    if (rule.max !== undefined) effects.push(`max ${rule.max}`);
  }
  const what = matchers.length === 0 ? 'every key' : matchers.join(', ');
  return `rules[${index}]: ${what} → ${effects.length === 0 ? 'as is' : effects.join(', ')}`;
}

/** What the rules make of one key. */
export interface Offer {
  /** What is offered; for an excluded key, the ERP's quantity (never pushed). */
  readonly quantity: number;
  readonly excluded: boolean;
  /** The label of the rule applied; null when none matched. */
  readonly rule: string | null;
}

/** Rules compiled once (glob matchers built), for evaluating many keys. */
export interface CompiledStockRules {
  readonly count: number;
  /** The index of the first rule matching the key; -1 for none. */
  match(kind: StockKind, dc: string, sku: string): number;
  offer(kind: StockKind, dc: string, sku: string, quantity: number): Offer;
  /** The rule's label by index (see ruleLabel). */
  label(index: number): string;
  /** The rule by index. */
  rule(index: number): StockRule | undefined;
}

export function compileStockRules(rules: readonly StockRule[]): CompiledStockRules {
  const compiled = rules.map((rule, index) => ({
    rule,
    label: ruleLabel(rule, index),
    sku: rule.sku === undefined ? undefined : skuMatcher(rule.sku),
  }));
  // One-entry memo: a set-based pass asks for the offered quantity, the rule and the exclusion
  // of the same key one after the other; only the first pays for the matching.
  let lastKind: string | undefined;
  let lastDc = '';
  let lastSku = '';
  let lastIndex = -1;
  const match = (kind: StockKind, dc: string, sku: string): number => {
    if (kind === lastKind && dc === lastDc && sku === lastSku) return lastIndex;
    let found = -1;
    for (let i = 0; i < compiled.length; i++) {
      const c = compiled[i]!;
      const r = c.rule;
      if (r.kind !== undefined && r.kind !== kind) continue;
      if (r.dc !== undefined && (kind !== 'dc' || r.dc !== dc)) continue;
      if (c.sku !== undefined && !c.sku(sku)) continue;
      found = i;
      break;
    }
    lastKind = kind;
    lastDc = dc;
    lastSku = sku;
    lastIndex = found;
    return found;
  };
  return {
    count: compiled.length,
    match,
    offer(kind, dc, sku, quantity) {
      const i = match(kind, dc, sku);
      if (i < 0) return { quantity, excluded: false, rule: null };
      const c = compiled[i]!;
      if (c.rule.exclude === true) return { quantity, excluded: true, rule: c.label };
      return { quantity: offeredQuantity(c.rule, quantity), excluded: false, rule: c.label };
    },
    label: (index) => compiled[index]?.label ?? `rules[${index}]`,
    rule: (index) => compiled[index]?.rule,
  };
}

/** An exact SKU is compared without the glob walk (still case-insensitively, like a pattern). */
function skuMatcher(pattern: string): GlobMatcher {
  if (pattern.includes('*') || pattern.includes('?')) return compileGlob(pattern);
  const lower = pattern.toLowerCase();
  return (sku) => sku.length === pattern.length && sku.toLowerCase() === lower;
}

/**
 * A location code as it comes from a row (text, or a JSON integer as ERPs write numbers),
 * mapped to its portal DC code when `locations` names it (after trimming); otherwise returned
 * unchanged for the usual checks. `mapped` tells whether the map was used.
 */
export function mapLocation(
  value: unknown,
  locations: LocationMap,
): { readonly value: unknown; readonly mapped: boolean } {
  let code: string | undefined;
  if (typeof value === 'string') code = value.trim();
  else if (typeof value === 'number' && Number.isSafeInteger(value)) code = String(value);
  if (code === undefined || !Object.hasOwn(locations, code)) return { value, mapped: false };
  return { value: locations[code], mapped: true };
}

/**
 * A stable text of the rules that decide offered quantities and the labels stored with them
 * (locations aside: they change how rows are read, not what stored keys offer). Equal texts:
 * nothing to work out again.
 */
export function rulesFingerprint(rules: readonly StockRule[]): string {
  return JSON.stringify(rules.map((r, i) => ruleLabel(r, i)));
}

/** Most keys listed as examples in an offer summary. */
export const MAX_OFFER_EXAMPLES = 20;

/**
 * What the stock rules did to one file's (or snapshot's) keys, for reports and `plan`: the ERP's
 * and the offered totals, how many keys each rule decided, and a few keys as examples.
 */
export interface OfferSummary {
  /** Units the ERP counts, over every key (excluded ones too). */
  readonly erpUnits: number;
  /** Units offered, over the keys not excluded. */
  readonly offeredUnits: number;
  /** Keys offered another quantity than the ERP counts. */
  readonly adjusted: number;
  /** Keys excluded: never pushed. */
  readonly excluded: number;
  /** Keys per rule applied, in the rules' order; keys no rule matched are not listed. */
  readonly byRule: ReadonlyArray<{ readonly rule: string; readonly keys: number }>;
  /** Keys a rule applied to (the first ones), with both quantities; offered null: excluded. */
  readonly examples: ReadonlyArray<{
    readonly key: string;
    readonly erp: number;
    readonly offered: number | null;
    readonly rule: string;
  }>;
}

/** Builds an OfferSummary key by key (for callers that evaluate the rules in JavaScript). */
export class OfferTally {
  #erpUnits = 0;
  #offeredUnits = 0;
  #adjusted = 0;
  #excluded = 0;
  readonly #byRule = new Map<string, number>();
  readonly #examples: Array<OfferSummary['examples'][number]> = [];

  add(key: string, erp: number, offer: Offer): void {
    this.#erpUnits += erp;
    if (offer.excluded) this.#excluded++;
    else {
      this.#offeredUnits += offer.quantity;
      if (offer.quantity !== erp) this.#adjusted++;
    }
    if (offer.rule === null) return;
    this.#byRule.set(offer.rule, (this.#byRule.get(offer.rule) ?? 0) + 1);
    if (this.#examples.length < MAX_OFFER_EXAMPLES) {
      this.#examples.push({
        key,
        erp,
        offered: offer.excluded ? null : offer.quantity,
        rule: offer.rule,
      });
    }
  }

  summary(): OfferSummary {
    return {
      erpUnits: this.#erpUnits,
      offeredUnits: this.#offeredUnits,
      adjusted: this.#adjusted,
      excluded: this.#excluded,
      byRule: [...this.#byRule]
        .map(([rule, keys]) => ({ rule, keys }))
        .sort((a, b) => ruleIndex(a.rule) - ruleIndex(b.rule)),
      examples: this.#examples,
    };
  }
}

/** The index in a rule's label (`rules[3]: …` → 3), for ordering. */
export function ruleIndex(label: string): number {
  const m = /^rules\[(\d+)\]/.exec(label);
  return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
}

/** An OfferSummary of no keys. */
export function emptyOfferSummary(): OfferSummary {
  return { erpUnits: 0, offeredUnits: 0, adjusted: 0, excluded: 0, byRule: [], examples: [] };
}

/** Two summaries of disjoint key sets as one (a set applied in chunks). */
export function mergeOfferSummaries(a: OfferSummary, b: OfferSummary): OfferSummary {
  const byRule = new Map<string, number>();
  for (const r of [...a.byRule, ...b.byRule])
    byRule.set(r.rule, (byRule.get(r.rule) ?? 0) + r.keys);
  return {
    erpUnits: a.erpUnits + b.erpUnits,
    offeredUnits: a.offeredUnits + b.offeredUnits,
    adjusted: a.adjusted + b.adjusted,
    excluded: a.excluded + b.excluded,
    byRule: [...byRule]
      .map(([rule, keys]) => ({ rule, keys }))
      .sort((x, y) => ruleIndex(x.rule) - ruleIndex(y.rule)),
    examples: [...a.examples, ...b.examples].slice(0, MAX_OFFER_EXAMPLES),
  };
}
