/**
 * Node's flags for the daemon's process. Written out where the process starts (the `start`, `dev`
 * and `demo` scripts of package.json, the first line of src/cli/main.ts for the installed
 * `supplier-sync` command, which the image's ENTRYPOINT runs); bench/ingest.ts measures with them;
 * test/unit/nodeFlags.test.ts holds those places to this list (and scripts/image-check.ts sees
 * the image's daemon run with them).
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
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16', '--expose-gc'];
