import {
  type CompiledStockRules,
  compileStockRules,
  rulesFingerprint,
  type StockRule,
} from '../domain/stockRules.ts';
import type { StateDb } from './db.ts';
import { KeyValueStore } from './kv.ts';

/**
 * Stock rules inside SQLite: the pure evaluation (src/domain/stockRules.ts) registered as SQL
 * functions on a connection, so that applying a file and working every key out again are
 * set-based statements, not a JavaScript loop over rows:
 *
 * - `stock_offer(kind, dc, sku, erp_quantity)`: the offered quantity; NULL when the key is
 *   excluded;
 * - `stock_rule(kind, dc, sku)`: the label of the rule applied (desired_stock.rule); NULL for none.
 *
 * A connection that never had rules set evaluates none (everything offered as is). The rules of a
 * connection change with `setStockRules`; statements prepared earlier see the new ones.
 */
interface Registered {
  rules: CompiledStockRules;
  fingerprint: string;
}

const registered = new WeakMap<StateDb, Registered>();

const NONE = { rules: compileStockRules([]), fingerprint: rulesFingerprint([]) };

/** SQL for the offered quantity of a row, given its column expressions (for the apply statements). */
export const offeredSql = (kind: string, dc: string, sku: string, erp: string) =>
  `COALESCE(stock_offer(${kind}, ${dc}, ${sku}, ${erp}), ${erp})`;
/** SQL for 1 when the row's key is excluded, else 0. */
export const excludedSql = (kind: string, dc: string, sku: string, erp: string) =>
  `(stock_offer(${kind}, ${dc}, ${sku}, ${erp}) IS NULL)`;
/** SQL for the label of the rule applied to the row's key, or NULL. */
export const ruleSql = (kind: string, dc: string, sku: string) =>
  `stock_rule(${kind}, ${dc}, ${sku})`;

/** Registers the rule functions on `db` (once; no rules until setStockRules). */
export function ensureStockRuleFunctions(db: StateDb): void {
  if (registered.has(db)) return;
  const state: Registered = { ...NONE };
  registered.set(db, state);
  db.function(
    'stock_offer',
    { varargs: false },
    (kind: unknown, dc: unknown, sku: unknown, quantity: unknown) => {
      const offer = state.rules.offer(
        kind as 'factory' | 'dc',
        dc as string,
        sku as string,
        Number(quantity),
      );
      return offer.excluded ? null : offer.quantity;
    },
  );
  db.function('stock_rule', (kind: unknown, dc: unknown, sku: unknown) => {
    const index = state.rules.match(kind as 'factory' | 'dc', dc as string, sku as string);
    return index < 0 ? null : state.rules.label(index);
  });
}

/** The rules `db`'s statements evaluate from now on. */
export function setStockRules(db: StateDb, rules: readonly StockRule[]): void {
  ensureStockRuleFunctions(db);
  const state = registered.get(db)!;
  state.rules = compileStockRules(rules);
  state.fingerprint = rulesFingerprint(rules);
}

export interface RederiveResult {
  /** Keys whose offered quantity, rule or exclusion changed. */
  readonly changed: number;
  /** Keys whose offered quantity changed (or that are offered again after an exclusion). */
  readonly offerChanged: number;
  /** Of those, keys newly made pending (the rest were pending already). */
  readonly newlyPending: number;
  readonly newlyExcluded: number;
  readonly noLongerExcluded: number;
  /** Stored failures dropped: their key is excluded now, or offers another quantity. */
  readonly failuresCleared: number;
  /** Whether the pass ran (false: desired_stock was worked out with these rules already). */
  readonly ran: boolean;
}

function build(db: StateDb) {
  ensureStockRuleFunctions(db);
  db.exec(
    `CREATE TEMP TABLE IF NOT EXISTS rederived (
       kind TEXT NOT NULL, dc TEXT NOT NULL, sku TEXT NOT NULL,
       quantity INTEGER NOT NULL, rule TEXT, excluded INTEGER NOT NULL,
       was_quantity INTEGER NOT NULL, was_excluded INTEGER NOT NULL,
       PRIMARY KEY (kind, dc, sku)) WITHOUT ROWID`,
  );
  const k = ['kind', 'dc', 'sku'] as const;
  return {
    clear: db.prepare('DELETE FROM temp.rederived'),
    // One pass over every key: only the keys whose outcome differs are written down.
    collect: db.prepare(
      `INSERT INTO temp.rederived (kind, dc, sku, quantity, rule, excluded, was_quantity, was_excluded)
       SELECT kind, dc, sku, q, r, x, quantity, excluded FROM (
         SELECT kind, dc, sku, quantity, excluded, rule,
                ${offeredSql(...k, 'erp_quantity')} AS q, ${ruleSql(...k)} AS r,
                ${excludedSql(...k, 'erp_quantity')} AS x
           FROM desired_stock WHERE erp_quantity IS NOT NULL)
        WHERE q != quantity OR x != excluded OR r IS NOT rule`,
    ),
    update: db.prepare(
      `UPDATE desired_stock SET quantity = r.quantity, rule = r.rule, excluded = r.excluded
         FROM temp.rederived r
        WHERE desired_stock.kind = r.kind AND desired_stock.dc = r.dc AND desired_stock.sku = r.sku`,
    ),
    counts: db.prepare<
      [],
      { offer: number | null; excluded: number | null; included: number | null }
    >(
      `SELECT SUM(excluded = 0 AND (was_excluded = 1 OR quantity != was_quantity)) AS offer,
              SUM(excluded = 1 AND was_excluded = 0) AS excluded,
              SUM(excluded = 0 AND was_excluded = 1) AS included
         FROM temp.rederived`,
    ),
    markPending: db.prepare<[number]>(
      `INSERT INTO pending_stock (kind, dc, sku, since)
       SELECT kind, dc, sku, ? FROM temp.rederived
        WHERE excluded = 0 AND (was_excluded = 1 OR quantity != was_quantity)
       ON CONFLICT DO NOTHING`,
    ),
    // An excluded key owes nothing: it is never pushed.
    settleExcluded: db.prepare(
      `DELETE FROM pending_stock WHERE (kind, dc, sku) IN (
         SELECT kind, dc, sku FROM temp.rederived WHERE excluded = 1)`,
    ),
    clearFailures: db.prepare(
      `DELETE FROM stock_failures WHERE (kind, dc, sku) IN (
         SELECT r.kind, r.dc, r.sku FROM temp.rederived r
           JOIN stock_failures f ON f.kind = r.kind AND f.dc = r.dc AND f.sku = r.sku
          WHERE r.excluded = 1 OR f.quantity != r.quantity)`,
    ),
  };
}

const cache = new WeakMap<StateDb, ReturnType<typeof build>>();

/**
 * Works every key's offered quantity out again with the connection's rules, in one transaction
 * of set-based statements, when they are not the rules desired_stock was last worked out with
 * (`force`: regardless). Only keys whose offered quantity changed (or that are offered again)
 * are made pending; keys now excluded stop being pending and lose their stored failure (what
 * the portal holds for them is left as it is); a failure of a key that now offers another
 * quantity is replaced by it, as when a file brings a new quantity.
 */
export function rederiveOffers(
  db: StateDb,
  now: number,
  options: { force?: boolean } = {},
): RederiveResult {
  ensureStockRuleFunctions(db);
  const { fingerprint } = registered.get(db)!;
  let s = cache.get(db);
  if (s === undefined) {
    s = build(db);
    cache.set(db, s);
  }
  const st = s;
  const kv = new KeyValueStore(db);
  return db
    .transaction((): RederiveResult => {
      const stored = kv.get('stock_rules.fingerprint') ?? NONE.fingerprint;
      if (stored === fingerprint && options.force !== true) {
        return {
          changed: 0,
          offerChanged: 0,
          newlyPending: 0,
          newlyExcluded: 0,
          noLongerExcluded: 0,
          failuresCleared: 0,
          ran: false,
        };
      }
      st.clear.run();
      const changed = st.collect.run().changes;
      const counts = st.counts.get();
      const failuresCleared = st.clearFailures.run().changes;
      st.update.run();
      const newlyPending = st.markPending.run(now).changes;
      st.settleExcluded.run();
      st.clear.run();
      kv.set('stock_rules.fingerprint', fingerprint, now);
      return {
        changed,
        offerChanged: counts?.offer ?? 0,
        newlyPending,
        newlyExcluded: counts?.excluded ?? 0,
        noLongerExcluded: counts?.included ?? 0,
        failuresCleared,
        ran: true,
      };
    })
    .immediate();
}

/** The fingerprint of the rules `db` evaluates now (see rulesFingerprint). */
export function currentRulesFingerprint(db: StateDb): string {
  return registered.get(db)?.fingerprint ?? NONE.fingerprint;
}
