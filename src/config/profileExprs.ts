import { CHECK_ONLY } from './expr/celEnvironment.ts';
import { compileExpr } from './expr/exprCompile.ts';
import { fieldGives } from './profileColumns.ts';

/**
 * Checks every expression of a profile as the profiles file is read (product contract: a syntax
 * error, an unknown function or a field of the wrong type stops the start, or keeps the last good
 * profiles): `issue` gets the field's path and `at LINE:COLUMN: what`.
 */
export function checkProfileExpressions(
  profile: {
    readonly columns: Readonly<Record<string, unknown>>;
    readonly when: ReadonlyArray<{ readonly if: string } | object>;
  },
  issue: (path: Array<string | number>, message: string) => void,
): void {
  for (const [field, source] of Object.entries(profile.columns)) {
    if (source === null || typeof source !== 'object' || !('expr' in source)) continue;
    const r = compileExpr(String(source.expr), fieldGives(field), CHECK_ONLY);
    if (!r.ok) issue(['columns', field, 'expr'], r.problem);
  }
  for (const [i, c] of profile.when.entries()) {
    if (!('if' in c)) continue;
    const r = compileExpr(c.if, 'condition', CHECK_ONLY);
    if (!r.ok) issue(['when', i, 'if'], r.problem);
  }
}
