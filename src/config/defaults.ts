import { settings } from './settings.ts';

/**
 * The text of config/default.json: every setting with its default (null where unset), each
 * preceded by a "// KEY" comment entry that says what it means.
 */
export function defaultConfigJson(): string {
  const out: Record<string, unknown> = {
    '//': 'supplier-sync settings with their defaults. Keys are the environment variable names; keys starting with // are comments. Pass a copy with --config FILE.',
  };
  for (const s of Object.values(settings)) {
    out[`// ${s.key}`] = s.doc;
    out[s.key] = s.default ?? null;
  }
  return `${JSON.stringify(out, null, 2)}\n`;
}
