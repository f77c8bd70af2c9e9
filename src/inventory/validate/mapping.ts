import { normalizeColumn } from '../parse/header.ts';
import {
  detectKind,
  type FileKind,
  ignoredColumns,
  KIND_COLUMNS,
  KIND_LABEL,
  type KindDetection,
} from './kinds.ts';

/**
 * A profile's column mapping applied to a header and to rows (product contract, "ERP exports as
 * they come"): `columns` maps an API field to the file's column name (case and surrounding spaces
 * ignored); fields not mapped are looked up by their own names; `constants` give a field one value
 * for every row and count like columns when the kind is told. A column carrying the own name of a
 * field the profile maps elsewhere (or sets as a constant) is left out: the profile said where
 * that field comes from.
 */
export interface ProfileColumns {
  readonly kind?: 'factory' | 'dc' | 'confirmations' | 'products' | undefined;
  /** API field → column name, or 1-based position (a file without a header). */
  readonly columns?: Readonly<Partial<Record<string, string | number>>>;
  readonly constants?: Readonly<Partial<Record<string, unknown>>>;
  /** Quantity column → centre (a wide export): the file is a DC file. */
  readonly spread?: Readonly<Record<string, string>>;
  /** Columns the row rules read (`when`, `subtract`). */
  readonly when?: ReadonlyArray<{ readonly column: string | number }>;
  readonly subtract?: ReadonlyArray<string | number>;
}

export interface ColumnMapping {
  /** Normalized file column → API field. */
  readonly rename: ReadonlyMap<string, string>;
  /** API fields the profile maps or sets: their own-name columns are left out. */
  readonly shadowed: ReadonlySet<string>;
  readonly constants: Readonly<Record<string, unknown>>;
  /** The kind the profile tells, if any. */
  readonly kind: FileKind | undefined;
  /** The quantity columns of a wide export (normalized), which give the DC and quantity fields. */
  readonly spread: readonly string[];
  /** Columns the profile's row rules read (normalized): used, not ignored. */
  readonly used: ReadonlySet<string>;
}

/** Every column some kind knows. */
const API_COLUMNS: ReadonlySet<string> = new Set(
  Object.values(KIND_COLUMNS).flatMap((k) => [...k.required, ...k.optional]),
);

const KINDS: Readonly<Record<NonNullable<ProfileColumns['kind']>, FileKind>> = {
  factory: 'factory_stock',
  dc: 'dc_stock',
  confirmations: 'shipment_confirmations',
  products: 'products',
};

export function columnMapping(profile: ProfileColumns): ColumnMapping {
  const rename = new Map<string, string>();
  for (const [field, column] of Object.entries(profile.columns ?? {})) {
    if (column !== undefined) rename.set(normalizeColumn(String(column)), field);
  }
  const constants: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(profile.constants ?? {})) {
    if (value !== undefined) constants[field] = value;
  }
  const spread = Object.keys(profile.spread ?? {}).map(normalizeColumn);
  const used = [
    ...(profile.when ?? []).map((c) => c.column),
    ...(profile.subtract ?? []),
    ...spread,
  ].map((c) => normalizeColumn(String(c)));
  return {
    rename,
    shadowed: new Set([...rename.values(), ...Object.keys(constants)]),
    constants,
    kind:
      profile.kind === undefined
        ? spread.length > 0
          ? 'dc_stock'
          : undefined
        : KINDS[profile.kind],
    spread,
    used: new Set(used),
  };
}

/** The columns a header names once mapped (API names, constants added), and mapped columns it lacks. */
export function mapHeader(
  header: readonly string[],
  mapping: ColumnMapping,
): { columns: string[]; missing: Array<{ field: string; column: string }> } {
  const columns: string[] = [];
  for (const column of header) {
    const field = mapping.rename.get(column);
    if (field !== undefined) columns.push(field);
    else if (!mapping.shadowed.has(column)) columns.push(column);
  }
  for (const field of Object.keys(mapping.constants)) {
    if (!columns.includes(field)) columns.push(field);
  }
  const present = new Set(header);
  const missing = [...mapping.rename]
    .filter(([column]) => !present.has(column))
    .map(([column, field]) => ({ field, column }));
  // A wide export's quantity columns give each row's centre and quantity.
  for (const column of mapping.spread) {
    if (!present.has(column)) missing.push({ field: 'stock_quantity', column });
  }
  if (mapping.spread.length > 0) columns.push('distribution_centre_code', 'stock_quantity');
  return { columns: columns.filter((c) => !mapping.used.has(c) || API_COLUMNS.has(c)), missing };
}

/**
 * The key a (normalized) column's values go under once mapped: its API field, its own name, or
 * undefined when the profile says the field comes from elsewhere. For readers of a header, which
 * apply it once to the header instead of to every row (then only addConstants is left per row).
 */
export function columnKey(mapping: ColumnMapping): (column: string) => string | undefined {
  return (column) => {
    const field = mapping.rename.get(column);
    if (field !== undefined) return field;
    return mapping.shadowed.has(column) ? undefined : column;
  };
}

/** Sets the profile's constants on a row already keyed by API field (in place). */
export function addConstants(fields: Record<string, unknown>, mapping: ColumnMapping): void {
  for (const field in mapping.constants) fields[field] = mapping.constants[field];
}

/** One row's fields (keyed by normalized column) keyed by API field, constants added. */
export function mapFields(
  fields: Readonly<Record<string, unknown>>,
  mapping: ColumnMapping,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(fields)) {
    const field = mapping.rename.get(column);
    if (field !== undefined) out[field] = value;
    else if (!mapping.shadowed.has(column)) out[column] = value;
  }
  for (const [field, value] of Object.entries(mapping.constants)) out[field] = value;
  return out;
}

/**
 * The kind of a file read with a profile, from its (normalized) header: the profile's mapping
 * and constants applied, then the kind told by the columns — or, when the profile names the kind,
 * that kind if its columns are all there. Without a profile (no mapping), exactly detectKind.
 */
export function detectKindWithProfile(
  header: readonly string[],
  mapping: ColumnMapping | undefined,
): KindDetection {
  if (mapping === undefined) return detectKind(header);
  const { columns, missing } = mapHeader(header, mapping);
  const lacking = missing.map(
    (m) => `the profile maps ${m.field} to "${m.column}", which the header lacks`,
  );
  const kind = mapping.kind;
  if (kind === undefined) {
    const detected = detectKind(columns);
    return detected.ok || lacking.length === 0
      ? detected
      : { ok: false, reason: `${detected.reason}; ${lacking.join('; ')}` };
  }
  const absent = KIND_COLUMNS[kind].required.filter((c) => !columns.includes(c));
  if (absent.length > 0) {
    const reasons = [
      `the profile says ${KIND_LABEL[kind]}, but no column gives ${absent.join(', ')}`,
      ...lacking,
    ];
    return { ok: false, reason: reasons.join('; ') };
  }
  return { ok: true, kind, ignored: ignoredColumns(kind, columns) };
}
