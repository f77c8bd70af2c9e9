/**
 * A profile as JSON the way the project's docs write profiles: one field a line, and a value on
 * the line of its field while it fits in `width` characters (`"columns": { "sku": "SKU" }`),
 * else broken one entry a line. What `plan --suggest-profile` prints and the console shows.
 */
export function profileText(profile: unknown, width = 100): string {
  return block(profile, 0, width);
}

function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  return JSON.stringify(value);
}

function block(value: unknown, indent: number, width: number): string {
  const pad = ' '.repeat(indent + 2);
  const fits = (prefix: string, v: unknown) =>
    indent + 2 + prefix.length + inline(v).length <= width;
  if (Array.isArray(value)) {
    const items = value.map((v) => (fits('', v) ? inline(v) : block(v, indent + 2, width)));
    return `[\n${items.map((i) => pad + i).join(',\n')}\n${' '.repeat(indent)}]`;
  }
  if (value !== null && typeof value === 'object') {
    const lines = Object.entries(value).map(([k, v]) => {
      const key = `${JSON.stringify(k)}: `;
      return pad + key + (fits(key, v) ? inline(v) : block(v, indent + 2, width));
    });
    return `{\n${lines.join(',\n')}\n${' '.repeat(indent)}}`;
  }
  return JSON.stringify(value);
}
