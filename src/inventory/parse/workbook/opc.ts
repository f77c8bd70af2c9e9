/**
 * Part names and relationships of the Open Packaging Conventions (ECMA-376 Part 2), as far as
 * reading a workbook needs them: pure functions on names and parsed relationship lists.
 *
 * A part name is an absolute path in the package (`/xl/workbook.xml`); its zip entry is the same
 * name without the leading `/`. Part names compare case-insensitively (ASCII), so the package's
 * entries are looked up by `partKey`. A relationship's target is a URI relative to the part that
 * holds the relationship (`worksheets/sheet1.xml`, `../xl/x.xml`) or absolute (`/xl/...`, as
 * openpyxl writes them); percent-encoding is decoded.
 */

/** One relationship of a `.rels` part. */
export interface Relationship {
  readonly id: string;
  /** The relationship type URI. */
  readonly type: string;
  /** The target resolved to a part name (`/xl/worksheets/sheet1.xml`); undefined when external. */
  readonly target: string | undefined;
}

/** The lookup key of a part name or zip entry name: no leading `/`, ASCII lower case. */
export function partKey(name: string): string {
  return name.replace(/^\/+/, '').toLowerCase();
}

/** The relationships part of `partName`: `/xl/workbook.xml` → `/xl/_rels/workbook.xml.rels`. */
export function relsPartOf(partName: string): string {
  const slash = partName.lastIndexOf('/');
  return `${partName.slice(0, slash + 1)}_rels/${partName.slice(slash + 1)}.rels`;
}

/** The package's own relationships part (`/_rels/.rels`), whose source is the package root. */
export const PACKAGE_RELS = '/_rels/.rels';

/**
 * Resolves a relationship target against the part that holds the relationship (`/` for the
 * package's own relationships). undefined when the target is not a part of the package (an
 * absolute URI with a scheme, or empty).
 */
export function resolveTarget(sourcePart: string, target: string): string | undefined {
  const t = target.trim().replaceAll('\\', '/');
  if (t === '' || /^[a-z][a-z0-9+.-]*:/i.test(t)) return undefined;
  const base = sourcePart.slice(0, sourcePart.lastIndexOf('/') + 1) || '/';
  const url = new URL(t, `http://package${base}`);
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return url.pathname;
  }
}

/**
 * Whether a relationship type URI names `kind` (`worksheet`, `sharedStrings`, `styles`,
 * `officeDocument`): its last path segment, in the transitional
 * (`http://schemas.openxmlformats.org/officeDocument/2006/relationships/…`) and strict
 * (`http://purl.oclc.org/ooxml/officeDocument/relationships/…`) vocabularies alike.
 */
export function isType(type: string, kind: string): boolean {
  return type.slice(type.lastIndexOf('/') + 1).toLowerCase() === kind.toLowerCase();
}

/** The local part of an XML name (`x:row` → `row`). */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/**
 * A sheet's relationship id attribute (`r:id` in the relationships namespace, whatever its
 * prefix): the attribute named `id` with a prefix.
 */
export function relationshipIdOf(attributes: Record<string, string>): string | undefined {
  for (const [name, value] of Object.entries(attributes)) {
    if (name.includes(':') && localName(name) === 'id') return value;
  }
  return undefined;
}
