/**
 * What column names say, in the languages ERPs are used in: a name is folded (accents and case
 * dropped, camel case and punctuation made spaces: `QtyOnHand` and `qty_on_hand` are `qty on
 * hand`, `QUANTITÀ` is `quantita`) and compared with lists of terms. A term matches a name whole
 * (`Quantity`), as whole words inside it (`Reserved Quantity`), or — in scripts written without
 * spaces (Chinese, Japanese, Korean) — as part of it (`在庫数`).
 */

/** A name folded for comparing: words of letters and digits, lower case, no accents. */
export function foldName(name: string): string {
  return name
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Words of a folded name, with digits cut off their ends (`quantity1` is `quantity`). */
function words(folded: string): string[] {
  return folded
    .split(' ')
    .map((w) => w.replace(/^\d+(?=\p{L})|(?<=\p{L})\d+$/gu, ''))
    .filter((w) => w !== '');
}

const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** How a name meets a term: 'whole' (the whole name), 'part' (words of it), or undefined. */
export type Fit = 'whole' | 'part';

export function nameFit(name: string, term: string): Fit | undefined {
  const n = words(foldName(name));
  const t = words(foldName(term));
  if (t.length === 0 || n.length === 0) return undefined;
  if (n.join('') === t.join('')) return 'whole';
  if (UNSPACED.test(term)) return n.join('').includes(t.join('')) ? 'part' : undefined;
  for (let i = 0; i + t.length <= n.length; i++) {
    if (t.every((w, j) => n[i + j] === w)) return 'part';
  }
  return undefined;
}

/** A list of terms with a weight each: how strongly a name meeting one says what a column is. */
export type Terms = ReadonlyArray<readonly [term: string, weight: number]>;

/** The best weight of a name against terms: whole matches count fully, words inside it 0.7. */
export function nameWeight(name: string, terms: Terms): number {
  let best = 0;
  for (const [term, weight] of terms) {
    const f = nameFit(name, term);
    if (f === undefined) continue;
    best = Math.max(best, f === 'whole' ? weight : weight * 0.7);
  }
  return best;
}

/** Whether a name holds any of the terms (whole or as words). */
export function names(name: string, terms: readonly string[]): boolean {
  return terms.some((t) => nameFit(name, t) !== undefined);
}

const w = (weight: number, ...terms: string[]) => terms.map((t) => [t, weight] as const);

/** Names of a SKU column: the product's own code. */
export const SKU_TERMS: Terms = [
  ...w(
    3,
    'sku',
    'variant sku',
    'article number',
    'article no',
    'art nr',
    'artnr',
    'artikelnummer',
    'artikelnr',
    'artikel nr',
    'item number',
    'item no',
    'item nr',
    'item code',
    'itemcode',
    'product code',
    'product number',
    'product no',
    'part number',
    'part no',
    'partno',
    'reference',
    'internal reference',
    'default code',
    'search key',
    'material number',
    'materialnummer',
    'stock code',
    'codice articolo',
    'cod articolo',
    'codigo articulo',
    'referencia',
    'code article',
    'code produit',
    'artikelcode',
    'varenummer',
    'artikel',
    'article',
    'индекс',
    'артикул',
    '品番',
    '商品コード',
    '品目コード',
    '货号',
    '商品编码',
    '품번',
  ),
  ...w(2.5, 'code', 'codice', 'codigo', 'ref', 'item', 'material'),
  ...w(2, 'ean', 'ean13', 'gtin', 'upc', 'barcode', 'isbn', 'jan', 'mpn'),
  ...w(1, 'product', 'id'),
];

/** Names that say a column is something else than a SKU, whatever its values. */
export const NOT_SKU = [
  'name',
  'title',
  'description',
  'desc',
  'bezeichnung',
  'beschreibung',
  'descrizione',
  'descripcion',
  'nombre',
  'nom',
  'libelle',
  'category',
  'brand',
  'manufacturer',
  'supplier',
  'vendor',
  'location',
  'warehouse',
  'lot',
  'batch',
  'serial',
  'bin',
  'status',
  'type',
  'price',
  'cost',
  'date',
  'handle',
  'url',
  'image',
  'tax',
  'order',
  'tracking',
  'carrier',
  'parent',
  'company',
];

/** Names of a quantity column; `available` first: what can be sold is what the portal offers. */
export const QUANTITY_TERMS: Terms = [
  ...w(
    4,
    'available',
    'qty available',
    'quantity available',
    'available quantity',
    'available stock',
    'free stock',
    'disponible',
    'stock disponible',
    'disponibile',
    'disponibilita',
    'verfugbar',
    'verfuegbar',
    'verfugbarer bestand',
    'verfugbare menge',
    'sellable',
    'available to sell',
    'available to promise',
    'atp',
    'disponivel',
    'beschikbaar',
    'tillganglig',
    'dostepne',
    'доступно',
    '可用',
    '有効在庫',
  ),
  ...w(
    3,
    'qty',
    'quantity',
    'quantities',
    'stock',
    'stocks',
    'stock qty',
    'stock quantity',
    'stock level',
    'stock on hand',
    'soh',
    'in stock',
    'on hand',
    'onhand',
    'inventory',
    'units',
    'count',
    'counted',
    'physical count',
    'physical inventory',
    'physical stock',
    'menge',
    'bestand',
    'lagerbestand',
    'lagermenge',
    'anzahl',
    'quantita',
    'giacenza',
    'giacenze',
    'cantidad',
    'existencias',
    'existencia',
    'inventario',
    'quantite',
    'qte',
    'quantidade',
    'estoque',
    'voorraad',
    'aantal',
    'antal',
    'lagersaldo',
    'saldo',
    'количество',
    'остаток',
    'ilosc',
    'stan',
    'stok',
    'miktar',
    'adet',
    'mnozstvi',
    'mennyiseg',
    'ποσοτητα',
    'αποθεμα',
    '数量',
    '在庫',
    '库存',
    '庫存',
    '재고',
    '수량',
    'מלאי',
    'כמות',
    'مخزون',
    'كمية',
  ),
];

/** Whether a name says what can be sold (`Available`, `verfügbar`): no reserved figure is taken off it. */
export function isAvailable(name: string): boolean {
  return QUANTITY_TERMS.some(([term, weight]) => weight === 4 && nameFit(name, term) !== undefined);
}

/** Words that make a quantity-like name another figure: a threshold, a price, a part of the stock. */
export const NOT_QUANTITY = [
  'min',
  'minimum',
  'minimal',
  'max',
  'maximum',
  'reorder',
  'low',
  'threshold',
  'alert',
  'safety',
  'target',
  'ideal',
  'ordered',
  'on order',
  'order',
  'incoming',
  'inbound',
  'transit',
  'committed',
  'reserved',
  'allocated',
  'unavailable',
  'backorder',
  'backorders',
  'sold',
  'sales',
  'returned',
  'damaged',
  'blocked',
  'quarantine',
  'price',
  'cost',
  'value',
  'weight',
  'width',
  'height',
  'depth',
  'length',
  'tax',
  'vat',
  'rate',
  'percent',
  'discount',
  'id',
  'ean',
  'days',
  'position',
  'lead',
  'pack',
  'moq',
  'multiple',
  'book',
  'expected',
  'previous',
  'old',
  'difference',
  'variance',
  'adjustment',
  'delta',
  'internal use',
  'email',
  'allowed',
  'number',
  'level',
];

/** Names of figures taken off the quantity: what is on hand but promised. */
export const RESERVED_TERMS = [
  'reserved',
  'committed',
  'allocated',
  'reserviert',
  'impegnato',
  'reservado',
  'reserve',
];

/** Names of a location column: where the stock is (a warehouse, a store, a source). */
export const LOCATION_TERMS = [
  'location',
  'locations',
  'loc',
  'warehouse',
  'wh',
  'whse',
  'store',
  'site',
  'depot',
  'dc',
  'distribution centre',
  'distribution center',
  'source',
  'lager',
  'lagerort',
  'magazzino',
  'deposito',
  'almacen',
  'bodega',
  'entrepot',
  'magasin',
  'branch',
  'plant',
  'werk',
  'filiale',
  'locator',
  'magazijn',
  'склад',
  '倉庫',
  '仓库',
];

/** Places inside a warehouse: their stock adds up to the warehouse's, they are no centre. */
export const BIN_TERMS = ['bin', 'shelf', 'rack', 'aisle', 'slot', 'lagerplatz', 'fach', 'regal'];

/** Names of a lot or serial column: rows of one SKU per lot add up. */
export const LOT_TERMS = ['lot', 'batch', 'charge', 'serial', 'lotto', 'lote', 'expiry'];

/** Names of a type column, and the types that carry no stock of their own (parents, bundles). */
export const TYPE_TERMS = ['type', 'product type', 'item type', 'typ', 'artikelart', 'tipo'];
export const PARENT_TYPES = [
  'variable',
  'grouped',
  'external',
  'configurable',
  'bundle',
  'kit',
  'parent',
];

/** Names of a status or flag column. */
export const STATUS_TERMS = [
  'status',
  'state',
  'active',
  'enabled',
  'in stock',
  'stock status',
  'availability',
  'discontinued',
  'lagerstatus',
  'aktiv',
  'attivo',
  'activo',
  'actif',
  'estado',
  'stato',
];

/** Status texts meaning nothing can be sold, whatever the quantity says. */
export const ZERO_STATUSES = [
  'out of stock',
  'outofstock',
  'sold out',
  'discontinued',
  'inactive',
  'disabled',
  'blocked',
  'not available',
  'unavailable',
  'nicht verfugbar',
  'ausverkauft',
  'gesperrt',
  'esaurito',
  'agotado',
  'rupture',
  'epuise',
];

/** Quantity texts: those meaning none (`not stocked`), those meaning not known (`n/a`). */
export const ZERO_TEXTS = [
  'not stocked',
  'out of stock',
  'sold out',
  'none',
  'nil',
  '-',
  '–',
  '—',
  'no stock',
  'ausverkauft',
  'esaurito',
  'agotado',
  'epuise',
];
export const UNKNOWN_TEXTS = ['n/a', 'na', 'unknown', '?', 'tbd', 'tba', 'k.a.', 'n.v.'];

/** Names of the columns of shipment confirmations. */
export const ORDER_TERMS = [
  'order number',
  'order no',
  'order',
  'order id',
  'order ref',
  'bestellnummer',
  'auftragsnummer',
  'ordine',
  'pedido',
  'commande',
];
export const TRACKING_TERMS = [
  'tracking number',
  'tracking',
  'tracking no',
  'tracking code',
  'sendungsnummer',
  'trackingnummer',
  'paketnummer',
  'awb',
  'consignment',
];
export const CARRIER_TERMS = [
  'carrier',
  'courier',
  'shipping company',
  'spediteur',
  'versanddienstleister',
  'paketdienst',
  'transportista',
  'corriere',
  'transporteur',
];

/** Names of a product's name column (a products file names `sku` and `name`). */
export const NAME_TERMS = [
  'name',
  'product name',
  'item name',
  'title',
  'artikelname',
  'bezeichnung',
  'nome',
  'nombre',
  'nom',
  'designation',
  'libelle',
];
