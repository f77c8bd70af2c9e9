import { createRequire } from 'node:module';

/**
 * The CEL library and the RE2 engine, loaded at the first expression of a profile, not at start:
 * a daemon whose profiles have none never holds them (about 8 MiB of resident memory; each idle
 * daemon's cost is measured in docs/benchmarks.md, "Density"). Loaded with `require`, which
 * takes these ES modules synchronously, as the profiles file's check must.
 */
const load = createRequire(import.meta.url);

export function celLibrary(): typeof import('@marcbachmann/cel-js') {
  return load('@marcbachmann/cel-js') as typeof import('@marcbachmann/cel-js');
}

export function re2Library(): typeof import('@bufbuild/re2') {
  return load('@bufbuild/re2') as typeof import('@bufbuild/re2');
}
