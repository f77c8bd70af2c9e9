/** Factory stock is held per SKU; distribution-centre stock per (centre, SKU). */
export type StockKind = 'factory' | 'dc';

/** One stock position. `dc` is '' for factory stock, so one key shape serves both kinds. */
export interface StockKey {
  readonly kind: StockKind;
  readonly dc: string;
  readonly sku: string;
}

/** The absolute quantity wanted (or known) for one position. */
export interface StockRow extends StockKey {
  readonly quantity: number;
}

/** A stable text form of a key, for maps, logs and `failures retry KEY`: `factory:SKU`, `dc:CODE:SKU`. */
export function keyString(key: StockKey): string {
  return key.kind === 'factory' ? `factory:${key.sku}` : `dc:${key.dc}:${key.sku}`;
}

/** Parses `factory:SKU` or `dc:CODE:SKU`; undefined when the text is neither. */
export function parseKeyString(text: string): StockKey | undefined {
  if (text.startsWith('factory:') && text.length > 8)
    return { kind: 'factory', dc: '', sku: text.slice(8) };
  const m = /^dc:([^:]+):(.+)$/.exec(text);
  return m ? { kind: 'dc', dc: m[1]!, sku: m[2]! } : undefined;
}

/**
 * A key that still owes a push (a pending key), with the facts a push decides on: what the ERP
 * wants, what the portal is known to hold, and a stored failure.
 */
export interface PendingKey extends StockKey {
  readonly desired: number;
  /** Known remote quantity; null when the portal's value is not known. */
  readonly remote: number | null;
  /** A stored failure for this key, if any. */
  readonly failure: { readonly quantity: number; readonly nextAttemptAt: number } | null;
}
