import { nameFit, type Terms } from './columnWords.ts';

/**
 * The words of column names the suggestion knows, in the languages ERPs are used in, as
 * foldName folds names (no accents, lower case); `|` between terms.
 */

/** Terms from one text, `|` between them. */
const list = (text: string): readonly string[] => text.split('|');
/** Terms with one weight each. */
const w = (weight: number, text: string) => list(text).map((t) => [t, weight] as const);

/** Names of a SKU column: the product's own code. */
export const SKU_TERMS: Terms = [
  ...w(
    3,
    'sku|variant sku|article number|article no|art nr|artnr|artikelnummer|artikelnr|' +
      'artikel nr|item number|item no|item nr|item code|itemcode|product code|' +
      'product number|product no|part number|part no|partno|reference|' +
      'internal reference|default code|search key|material number|materialnummer|' +
      'stock code|codice articolo|cod articolo|codigo articulo|referencia|code article|' +
      'code produit|artikelcode|varenummer|artikel|article|артикул|品番|商品コード|' +
      '品目コード|货号|商品编码|품번',
  ),
  ...w(2.5, 'code|codice|codigo|ref|item|material'),
  ...w(2, 'ean|ean13|gtin|upc|barcode|isbn|jan|mpn|no|nr|number|nummer|numero|num'),
  ...w(1, 'product|id'),
];

/** Names that say a column is something else than a SKU, whatever its values. */
export const NOT_SKU = list(
  'name|title|description|desc|bezeichnung|beschreibung|descrizione|descripcion|' +
    'nombre|nom|libelle|category|brand|manufacturer|supplier|vendor|location|' +
    'warehouse|lot|batch|serial|bin|status|type|price|cost|date|handle|url|image|tax|' +
    'order|tracking|carrier|parent|company|unit|uom|measure|einheit',
);

/** Names of a quantity column; `available` first: what can be sold is what the portal offers. */
export const QUANTITY_TERMS: Terms = [
  ...w(
    4,
    'available|qty available|quantity available|available quantity|available stock|' +
      'free stock|disponible|stock disponible|disponibile|disponibilita|verfugbar|' +
      'verfuegbar|verfugbarer bestand|verfugbare menge|sellable|available to sell|' +
      'available to promise|atp|disponivel|beschikbaar|tillganglig|dostepne|доступно|可用|' +
      '有効在庫',
  ),
  ...w(
    3,
    'qty|quantity|quantities|stock|stocks|stock qty|stock quantity|stock level|' +
      'stock on hand|soh|in stock|on hand|onhand|inventory|units|count|counted|' +
      'physical count|physical inventory|physical stock|menge|bestand|lagerbestand|' +
      'lagermenge|anzahl|quantita|giacenza|giacenze|cantidad|existencias|existencia|' +
      'inventario|quantite|qte|quantidade|estoque|voorraad|aantal|antal|lagersaldo|' +
      'saldo|количество|остаток|ilosc|stan|stok|miktar|adet|mnozstvi|mennyiseg|ποσοτητα|' +
      'αποθεμα|数量|在庫|库存|庫存|재고|수량|מלאי|כמות|مخزون|كمية',
  ),
];

/** Whether a name says what can be sold (`Available`, `verfügbar`): no reserved figure is taken off it. */
export function isAvailable(name: string): boolean {
  return QUANTITY_TERMS.some(([term, weight]) => weight === 4 && nameFit(name, term) !== undefined);
}

/** Words that make a quantity-like name another figure: a threshold, a price, a part of the stock. */
export const NOT_QUANTITY = list(
  'min|minimum|minimal|max|maximum|reorder|low|threshold|alert|safety|target|ideal|' +
    'ordered|on order|order|incoming|inbound|transit|committed|reserved|allocated|' +
    'unavailable|backorder|backorders|sold|sales|returned|damaged|blocked|quarantine|' +
    'price|cost|value|weight|width|height|depth|length|tax|vat|rate|percent|discount|' +
    'id|ean|days|position|lead|pack|moq|multiple|book|expected|previous|old|' +
    'difference|variance|adjustment|delta|internal use|email|allowed|number|level',
);

/** Names of figures taken off the quantity: what is on hand but promised. */
export const RESERVED_TERMS = list(
  'reserved|committed|allocated|reserviert|impegnato|reservado|reserve',
);

/** Names of a location column: where the stock is (a warehouse, a store, a source). */
export const LOCATION_TERMS = list(
  'location|locations|loc|warehouse|wh|whse|store|site|depot|dc|distribution centre|' +
    'distribution center|source|lager|lagerort|magazzino|deposito|almacen|bodega|' +
    'entrepot|magasin|branch|plant|werk|filiale|locator|magazijn|склад|倉庫|仓库',
);

/** Places inside a warehouse: their stock adds up to the warehouse's, they are no centre. */
export const BIN_TERMS = list('bin|shelf|rack|aisle|slot|lagerplatz|fach|regal');

/** Names of a lot or serial column: rows of one SKU per lot add up. */
export const LOT_TERMS = list('lot|batch|charge|serial|lotto|lote|expiry|expiration');

/** Names of a type column, and the types that carry no stock of their own (parents, bundles). */
export const TYPE_TERMS = list('type|product type|item type|typ|artikelart|tipo');
export const PARENT_TYPES = list('variable|grouped|external|configurable|bundle|kit|parent');

/** Names of a status or flag column. */
export const STATUS_TERMS = list(
  'status|state|active|enabled|in stock|stock status|availability|discontinued|' +
    'lagerstatus|aktiv|attivo|activo|actif|estado|stato',
);

/** Status texts meaning nothing can be sold, whatever the quantity says. */
export const ZERO_STATUSES = list(
  'out of stock|outofstock|sold out|discontinued|inactive|disabled|blocked|' +
    'not available|unavailable|nicht verfugbar|ausverkauft|gesperrt|esaurito|agotado|' +
    'rupture|epuise',
);

/** Quantity texts: those meaning none (`not stocked`), those meaning not known (`n/a`). */
export const ZERO_TEXTS = list(
  'not stocked|out of stock|sold out|none|nil|-|–|—|no stock|ausverkauft|esaurito|' +
    'agotado|epuise|nicht vorratig|nicht auf lager|non disponibile|sin stock|rupture',
);

export const UNKNOWN_TEXTS = list('n/a|na|unknown|?|tbd|tba|k.a.|n.v.');

/** Names of the columns of shipment confirmations. */
export const ORDER_TERMS = list(
  'order number|order no|order|order id|order ref|bestellnummer|auftragsnummer|' +
    'ordine|pedido|commande',
);
export const TRACKING_TERMS = list(
  'tracking number|tracking|tracking no|tracking code|sendungsnummer|trackingnummer|' +
    'paketnummer|awb|consignment',
);

export const CARRIER_TERMS = list(
  'carrier|courier|shipping company|spediteur|versanddienstleister|paketdienst|' +
    'transportista|corriere|transporteur',
);

/** Names of a product's name column (a products file names `sku` and `name`). */
export const NAME_TERMS = list(
  'name|product name|item name|title|artikelname|bezeichnung|nome|nombre|nom|' +
    'designation|libelle',
);

/** Names of a unit of measure column, and of a date after which a lot cannot be sold. */
export const UNIT_TERMS = list('unit|uom|unit of measure|einheit|mengeneinheit|unidad|unita|unite');
export const EXPIRY_TERMS = list(
  'expiry|expiration|expiry date|expiration date|best before|use by|sell by|mhd|' +
    'verfallsdatum|ablaufdatum|scadenza|caducidad|peremption',
);
