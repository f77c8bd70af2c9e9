import type { NewProductBody } from '../../api/index.ts';
import type { BirthStock, ProductDraft } from '../../domain/catalogue.ts';
import type { CompiledStockRules } from '../../domain/stockRules.ts';

/**
 * The stock a new product is created with (pure): for each key, the quantity the products file
 * gives (`factory_stock`, `stock@CENTRE`), else the one desired stock holds for it; both as the
 * stock rules offer them (a key the rules exclude is left out). Centres that are not active on
 * the portal are left out (the portal refuses them). What the portal answers is then known
 * remote stock: this stock costs no push of its own.
 */
export interface DesiredOfSku {
  /** The offered factory quantity desired stock holds; undefined: none (or excluded). */
  readonly factory: number | undefined;
  /** Offered DC quantities by centre. */
  readonly dcs: ReadonlyMap<string, number>;
}

export function creationBody(
  draft: ProductDraft,
  file: BirthStock,
  desired: DesiredOfSku,
  rules: CompiledStockRules,
  activeCentres: ReadonlySet<string>,
): NewProductBody {
  const sku = draft.sku;
  const offered = (kind: 'factory' | 'dc', dc: string, q: number) => {
    const o = rules.offer(kind, dc, sku, q);
    return o.excluded ? undefined : o.quantity;
  };
  const factory =
    file.factory !== undefined ? offered('factory', '', file.factory) : desired.factory;
  const dcs: Array<{ distribution_centre_code: string; stock_quantity: number }> = [];
  const centres = new Set([...Object.keys(file.dcs), ...desired.dcs.keys()]);
  for (const dc of [...centres].sort()) {
    if (!activeCentres.has(dc)) continue;
    const fromFile = file.dcs[dc];
    const q = fromFile !== undefined ? offered('dc', dc, fromFile) : desired.dcs.get(dc);
    if (q !== undefined) dcs.push({ distribution_centre_code: dc, stock_quantity: q });
  }
  return {
    ...draft,
    ...(dcs.length === 0 ? {} : { distribution_centre_stock: dcs }),
    ...(factory === undefined ? {} : { factory_stock: { stock_quantity: factory } }),
  };
}
