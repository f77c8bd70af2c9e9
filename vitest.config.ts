import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Three projects (docs/testing.md): `unit` needs neither Redis nor a child process, `integration`
 * runs the daemon in the test's own process against real Redis, SQLite and the simulator, `e2e`
 * starts real processes where the process is the point (signals, exit codes, crashes, the demo).
 * A file lands in `integration` unless its folder says otherwise. `npm run test:unit` (and
 * `test:integration`, `test:e2e`) runs one of them.
 */
const UNIT = [
  'test/unit/**/*.test.ts',
  'test/api/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/inventory/**/*.test.ts',
  'test/simulator/**/*.test.ts',
  'test/state/**/*.test.ts',
];
const E2E = ['test/e2e/**/*.test.ts'];
/** Finds (or starts) the suite's Redis and hands its URL to the tests (inject('redisUrl')). */
const REDIS = ['test/setup/redis.ts'];
/**
 * Node's compile cache for the child processes the tests start (`node src/cli/main.ts …`, the
 * fixtures): a child then starts in about half the CPU time, which counts when several start at
 * once on two cores. Kept with the other caches under node_modules/.
 */
const NODE_COMPILE_CACHE = join(import.meta.dirname, 'node_modules', '.cache', 'node-compile');

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    teardownTimeout: 10_000,
    // Most of a daemon test's time is waiting (on Redis, the simulator, a watcher): more files
    // at once than cores keeps both cores busy. Each file has its own data dirs and BullMQ
    // prefixes, so files never share state.
    maxWorkers: 4,
    env: { NODE_COMPILE_CACHE },
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
    projects: [
      // Every project: a worker runs file after file without reloading every module for each
      // (isolate: false), which saves about a third of the CPU of unit and integration and a
      // fifth of e2e's. Tests leave no state behind (each harness, sandbox and child process is
      // closed in afterEach/afterAll; fake timers are restored; none sets process.env or adds
      // process listeners); module state they share is caches and the secret scrubber's list,
      // which only grows.
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, ...E2E],
          globalSetup: REDIS,
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'e2e', include: E2E, globalSetup: REDIS, isolate: false },
      },
    ],
  },
});
