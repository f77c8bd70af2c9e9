import { readFileSync } from 'node:fs';
import { PRODUCT_SCOPES, type ProductScope } from '../../api/index.ts';
import { jsonSyntaxProblem } from '../../config/jsonSyntax.ts';
import { UsageError } from '../usage.ts';

/** The `api` command's arguments: the request body, positional values, numbers, scopes. */

/** Where a request body comes from: inline JSON or a file. */
export interface BodyOptions {
  readonly 'json-body'?: string | undefined;
  readonly 'body-file'?: string | undefined;
}

export function body<T>(values: BodyOptions): T {
  const inline = values['json-body'];
  const file = values['body-file'];
  if (inline !== undefined && file !== undefined) {
    throw new UsageError('give --json-body or --body-file, not both');
  }
  let text: string;
  if (inline !== undefined) text = inline;
  else if (file !== undefined) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --body-file ${file}: ${(err as Error).message}`);
    }
  } else throw new UsageError('this action needs a body: --json-body JSON or --body-file FILE');
  try {
    return JSON.parse(text) as T;
  } catch {
    // Where, never what: a body may hold what should not reach a terminal's scrollback or a log.
    throw new UsageError(
      `the request body${file === undefined ? '' : ` in ${file}`} is ${jsonSyntaxProblem(text)}`,
    );
  }
}

export function arrayBody<T>(values: BodyOptions): T[] {
  const parsed = body<unknown>(values);
  if (!Array.isArray(parsed)) throw new UsageError('a bulk update body must be a JSON array');
  return parsed as T[];
}

export function textArg(args: readonly string[], name: string): string {
  const value = args[0];
  if (value === undefined || value === '') throw new UsageError(`missing ${name}`);
  return value;
}

export function intArg(args: readonly string[], name: string): number {
  const value = textArg(args, name);
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number`);
  return Number(value);
}

export function intOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a whole number`);
  return Number(value);
}

export function scopes(value: string): ProductScope[] {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of list) {
    if (!(PRODUCT_SCOPES as readonly string[]).includes(s)) {
      throw new UsageError(`unknown scope '${s}'; one of: ${PRODUCT_SCOPES.join(', ')}`);
    }
  }
  return list as ProductScope[];
}

/** `{key: value}` when value is set, else `{}` (exactOptionalPropertyTypes-friendly). */
export function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
