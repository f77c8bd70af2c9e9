import { normalizeColumn } from '../parse/header.ts';
import {
  type ColumnRef,
  describeRef,
  type HeaderNames,
  namePositions,
  resolveRef,
} from './headerKeys.ts';
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
 * they come"): `columns` maps an API field to a column of the file (headerKeys.ts: by name, case
 * and surrounding spaces ignored; by position; by letters; by occurrence) or to an expression;
 * fields not mapped are looked up by their own names; `constants` give a field one value for
 * every row and count like columns when the kind is told, as expressions do. A column carrying
 * the own name of a field the profile maps elsewhere (or sets as a constant) is left out: the
 * profile said where that field comes from.
 */
export interface ProfileColumns {
  readonly kind?: 'factory' | 'dc' | 'confirmations' | 'products' | undefined;
  /** API field → a column, or `{ expr }`. */
  readonly columns?: Readonly<Partial<Record<string, ColumnRef | { readonly expr: string }>>>;
  readonly constants?: Readonly<Partial<Record<string, unknown>>>;
  /** Quantity column → centre (a wide export): the file is a DC file. */
  readonly spread?: Readonly<Record<string, string>>;
  /** Columns the row rules read (`when`, `subtract`). */
  readonly when?: ReadonlyArray<{ readonly column: ColumnRef } | { readonly if: string }>;
  readonly subtract?: ReadonlyArray<ColumnRef>;
}

export interface ColumnMapping {
  /** API field → the column it comes from. */
  readonly fields: ReadonlyArray<{ readonly field: string; readonly ref: ColumnRef }>;
  /** Fields the profile computes with expressions. */
  readonly computed: readonly string[];
  /** API fields the profile maps or sets: their own-name columns are left out. */
  readonly shadowed: ReadonlySet<string>;
  readonly constants: Readonly<Record<string, unknown>>;
  /** The kind the profile tells, if any. */
  readonly kind: FileKind | undefined;
  /** The quantity columns of a wide export, which give the DC and quantity fields. */
  readonly spread: readonly ColumnRef[];
  /** Columns the profile's row rules read: used, not ignored. */
  readonly used: readonly ColumnRef[];
}

/** A header resolved for one file: the key each column's values go under, and what it lacks. */
export interface HeaderKeys {
  /** Per column (0 = the first): its key in each record, or undefined (left out). */
  readonly keys: ReadonlyArray<string | undefined>;
  /** The fields the rows give once mapped (API names, constants and computed fields added). */
  readonly columns: readonly string[];
  readonly missing: ReadonlyArray<{ readonly field: string; readonly column: string }>;
  /** Why the header cannot be read as the profile says (a name it repeats is read by name). */
  readonly problem: string | undefined;
  /** The key a column's values are under (a column the header lacks: a key no row has). */
  readonly keyOf: (ref: ColumnRef) => string | undefined;
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
  const fields: Array<{ field: string; ref: ColumnRef }> = [];
  const computed: string[] = [];
  for (const [field, source] of Object.entries(profile.columns ?? {})) {
    if (source === undefined) continue;
    if (typeof source === 'object' && 'expr' in source) computed.push(field);
    else fields.push({ field, ref: source });
  }
  const constants: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(profile.constants ?? {})) {
    if (value !== undefined) constants[field] = value;
  }
  const spread = Object.keys(profile.spread ?? {});
  const used = [
    ...(profile.when ?? []).flatMap((c) => ('column' in c ? [c.column] : [])),
    ...(profile.subtract ?? []),
    ...spread,
  ];
  return {
    fields,
    computed,
    shadowed: new Set([...fields.map((f) => f.field), ...computed, ...Object.keys(constants)]),
    constants,
    kind:
      profile.kind === undefined
        ? spread.length > 0
          ? 'dc_stock'
          : undefined
        : KINDS[profile.kind],
    spread,
    used,
  };
}

/** A key no header name can be (names are trimmed): for a column read only by its place. */
const placeKey = (index: number) => ` #${index + 1}`;

/**
 * Resolves a header for a profile: each mapped field's column gets the field's name, other
 * columns their own (unless the profile gives that field elsewhere), and the columns the rules
 * and `reads` (an expression's cells) use a key too — a column named nowhere but by its place
 * gets one no name can be. A repeated name read by name is a problem, not a guess.
 */
export function keyHeader(
  header: HeaderNames,
  mapping: ColumnMapping,
  reads: readonly ColumnRef[] = [],
): HeaderKeys {
  const at = namePositions(header.names);
  const keys: Array<string | undefined> = [];
  const missing: Array<{ field: string; column: string }> = [];
  let problem: string | undefined;
  const resolve = (ref: ColumnRef) => {
    const r = resolveRef(ref, header, at);
    if ('ambiguous' in r) problem ??= r.ambiguous;
    return 'index' in r ? r.index : undefined;
  };
  for (const { field, ref } of mapping.fields) {
    const index = resolve(ref);
    if (index === undefined) missing.push({ field, column: describeRef(ref) });
    else if (keys[index] !== undefined)
      problem ??= `${describeRef(ref)} is mapped to ${keys[index]} and ${field}`;
    else keys[index] = field;
  }
  header.names.forEach((name, i) => {
    if (name === '' || keys[i] !== undefined || mapping.shadowed.has(name)) return;
    if (at.get(name)!.length === 1) keys[i] = name;
    else if (API_COLUMNS.has(name))
      problem ??= `column "${name}" appears ${at.get(name)!.length} times in the header`;
  });
  const readKeys = new Set<string>();
  for (const ref of [...mapping.used, ...reads]) {
    const index = resolve(ref);
    if (index === undefined) continue;
    keys[index] ??= placeKey(index);
    readKeys.add(keys[index]);
  }
  for (const column of mapping.spread) {
    if (resolve(column) === undefined)
      missing.push({ field: 'stock_quantity', column: describeRef(column) });
  }
  const columns: string[] = [];
  for (const key of new Set(keys)) {
    if (key === undefined || key.startsWith(' ')) continue;
    if (readKeys.has(key) && !API_COLUMNS.has(key)) continue;
    columns.push(key);
  }
  // Repeated names no one reads are still columns of the file (ignored ones).
  for (const [name, positions] of at) {
    if (positions.length > 1 && !columns.includes(name) && !readKeys.has(name)) columns.push(name);
  }
  for (const field of [...mapping.computed, ...Object.keys(mapping.constants)]) {
    if (!columns.includes(field)) columns.push(field);
  }
  if (mapping.spread.length > 0) columns.push('distribution_centre_code', 'stock_quantity');
  const keyOf = (ref: ColumnRef) => {
    const index = resolve(ref);
    if (index !== undefined) return keys[index];
    return typeof ref === 'string' ? normalizeColumn(ref) : undefined;
  };
  return { keys, columns, missing, problem, keyOf };
}

/** The columns a header names once mapped (API names, constants added), and mapped columns it lacks. */
export function mapHeader(
  header: readonly string[],
  mapping: ColumnMapping,
): { columns: string[]; missing: Array<{ field: string; column: string }> } {
  const keyed = keyHeader({ names: header, open: false }, mapping);
  return { columns: [...keyed.columns], missing: [...keyed.missing] };
}

/** The key a column of a JSON object is under: its name (objects have no positions). */
export function objectKeyOf(ref: ColumnRef): string | undefined {
  if (typeof ref === 'string') return normalizeColumn(ref);
  if (typeof ref === 'object' && 'name' in ref) return normalizeColumn(ref.name);
  return undefined;
}

/** Sets the profile's constants on a row already keyed by API field (in place). */
export function addConstants(fields: Record<string, unknown>, mapping: ColumnMapping): void {
  for (const field in mapping.constants) fields[field] = mapping.constants[field];
}

/** One JSON object's fields (keyed by normalized name) keyed by API field, constants added. */
export function mapFields(
  fields: Readonly<Record<string, unknown>>,
  mapping: ColumnMapping,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const byName = new Map<string, string>();
  for (const { field, ref } of mapping.fields) {
    const name = objectKeyOf(ref);
    if (name !== undefined) byName.set(name, field);
  }
  for (const [column, value] of Object.entries(fields)) {
    const field = byName.get(column);
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
  header: readonly string[] | HeaderKeys,
  mapping: ColumnMapping | undefined,
): KindDetection {
  if (mapping === undefined) return detectKind(header as readonly string[]);
  const { columns, missing, problem } = Array.isArray(header)
    ? keyHeader({ names: header, open: false }, mapping)
    : (header as HeaderKeys);
  if (problem !== undefined) return { ok: false, reason: problem };
  const lacking = missing.map(
    (m) => `the profile maps ${m.field} to ${m.column}, which the header lacks`,
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
