import { CHECK_ONLY } from './expr/celEnvironment.ts';
import { compileExpr, type ExprRole } from './expr/exprCompile.ts';
import { fieldGives } from './profileColumns.ts';

/**
 * Checks every expression of a profile as the profiles file is read (product contract: a syntax
 * error, an unknown function or a field of the wrong type stops the start, or keeps the last good
 * profiles): `issue` gets the field's path and `at LINE:COLUMN: what`.
 */
export function checkProfileExpressions(
  profile: {
    readonly headerLine: number;
    readonly columns: Readonly<Record<string, unknown>>;
    readonly when: ReadonlyArray<{ readonly if: string } | object>;
  },
  issue: (path: Array<string | number>, message: string) => void,
): void {
  const check = (text: string, role: ExprRole, path: Array<string | number>) => {
    const r = compileExpr(text, role, CHECK_ONLY);
    if (!r.ok) return issue(path, r.problem);
    // Without a header there are no names to read a cell by.
    const named = [...r.expr.reads, ...r.expr.asks].find((c) => c.by === 'name');
    if (profile.headerLine === 0 && named?.by === 'name') {
      issue(
        path,
        `reads row['${named.name}'], and headerLine 0 means the file has no header: read cells by letter (cell.B) or position (col[2])`,
      );
    }
  };
  for (const [field, source] of Object.entries(profile.columns)) {
    if (source === null || typeof source !== 'object' || !('expr' in source)) continue;
    check(String(source.expr), fieldGives(field), ['columns', field, 'expr']);
  }
  for (const [i, c] of profile.when.entries()) {
    if ('if' in c) check(c.if, 'condition', ['when', i, 'if']);
  }
}
