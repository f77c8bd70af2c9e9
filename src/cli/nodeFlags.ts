/**
 * Node's flags for the daemon's process. Written out where the process starts (the `start`, `dev`
 * and `demo` scripts of package.json, the first line of src/cli/main.ts for the installed
 * `supplier-sync` command, which the image's ENTRYPOINT runs); bench/ingest.ts measures with them;
 * test/unit/nodeFlags.test.ts holds those places to this list (and scripts/image-check.ts sees
 * the image's daemon run with them). A `run` started without them (`node dist/cli/main.js run`, a
 * unit file or a container command of its own) re-executes itself with them: src/cli/relaunch.ts.
 *
 * `--max-semi-space-size=16` (MiB): V8 lets the young generation of a busy process grow to 2 × 32
 * MiB by default, and reading a large file keeps it busy; 16 caps it at 2 × 16 MiB. Measured on
 * a 1M-row file (docs/benchmarks.md): peak RSS 177 MiB instead of 205–220, and no slower (8 was
 * worse on both: more objects promoted to the old generation).
 *
 * `--expose-gc`: an idle daemon gives memory back (src/daemon/compaction.ts): a full collection
 * that shrinks the heap once the event loop is idle and the heap has grown, instead of waiting
 * about 100 s for V8's own memory reducer. Measured on 20 idle daemons (docs/benchmarks.md,
 * "Density"): about 20 MiB less each.
 *
 * `--max-old-space-size=128` (MiB): the old generation's ceiling. The daemon's live heap is a few
 * tens of MiB (rows are staged in SQLite, shared strings past a bound spilled), but a file of
 * millions of tiny rows makes garbage faster than V8's concurrent marking clears it when the
 * machine is loaded, and without a ceiling V8 lets the old generation grow first: 16 MiB of
 * one-field CSV rows took a fresh daemon to 277 MiB at load 10 (213 MiB idle), and one daemon
 * meeting nine hostile files in a row to 335–346 MiB under a full test run (#28 point 2). With
 * the ceiling V8 collects in time instead: 181 MiB for the same file at the same load
 * (bench/hostile.ts). Were a file ever to need more, the process would stop, and a reading that
 * ends in a crash three times sends its file to failed/ (src/inventory/ingest/attempts.ts).
 */
export const DAEMON_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=16',
  '--expose-gc',
  '--max-old-space-size=128',
];

/**
 * The environment the daemon's process starts with, beside its flags: read by the C library when
 * the process starts, so given where the flags are (the first line of src/cli/main.ts, the npm
 * scripts, the image's `ENV`) and added by a relaunch when missing (src/cli/relaunch.ts).
 *
 * `MALLOC_ARENA_MAX=1`: one malloc arena for every thread of the process. The threads that read a
 * large file beside the event loop (the staging worker, the checkpoint worker, SQLite's sorter)
 * each got an arena of their own, and what they freed stayed in it: after a 1,000-product sync an
 * idle daemon held 57–59 MiB of its own memory, 52–54 with one arena; a 1M-row ingest peaked at
 * 159–172 MiB instead of 182–202, as fast (docs/benchmarks.md, "However it was started").
 * Ignored where the C library is not glibc. A value given in the environment is kept.
 */
export const DAEMON_NODE_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '1' };

/** The daemon's environment settings `env` lacks (a value of its own counts as given). */
export function missingNodeEnv(
  env: NodeJS.ProcessEnv,
  wanted: Readonly<Record<string, string>> = DAEMON_NODE_ENV,
): Record<string, string> {
  return Object.fromEntries(Object.entries(wanted).filter(([name]) => env[name] === undefined));
}

/** The environment settings as a command line's prefix: `MALLOC_ARENA_MAX=1`. */
export const DAEMON_NODE_ENV_PREFIX = Object.entries(DAEMON_NODE_ENV)
  .map(([k, v]) => `${k}=${v}`)
  .join(' ');

/**
 * A flag's name as Node reads it, without its value: `--max_old_space_size=64` names
 * `--max-old-space-size` (V8 takes `_` and `-` alike).
 */
export function nodeFlagName(arg: string): string {
  const eq = arg.indexOf('=');
  return (eq < 0 ? arg : arg.slice(0, eq)).replaceAll('_', '-');
}

/**
 * The daemon's flags a process was started without: named neither on Node's command line
 * (`process.execArgv`) nor in `NODE_OPTIONS`. A flag given there with another value counts as
 * given, so that an operator's own choice (`--max-old-space-size=512` for a huge catalogue) stays.
 */
export function missingNodeFlags(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
  flags: readonly string[] = DAEMON_NODE_FLAGS,
): string[] {
  const given = new Set(
    [...execArgv, ...(nodeOptions ?? '').split(/\s+/)]
      .filter((a) => a.startsWith('--'))
      .map(nodeFlagName),
  );
  return flags.filter((f) => !given.has(nodeFlagName(f)));
}
