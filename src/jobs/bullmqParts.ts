/**
 * BullMQ's classes from their own modules rather than its entry point. The entry point loads every
 * backend BullMQ ships — PostgreSQL (its SQL scripts alone are 250 kB of source), Valkey GLIDE, the
 * relays — and the daemon uses the Redis one: an idle daemon held their sources and code all its
 * life, about 2 MiB of its own memory (docs/benchmarks.md, "However it was started"). (Its Redis
 * connection still loads the small node-redis and Bun adapters, and its job scheduler luxon.) The modules are BullMQ's CommonJS build (its ES build is not loadable by Node: it
 * imports directories); the types are the package's own. test/jobs/bullmqParts.test.ts holds each
 * to the entry point's export of the same name, so that an upgrade that moves one fails there.
 */
import { createRequire } from 'node:module';
import type * as BullMQ from 'bullmq';

const require = createRequire(import.meta.url);
const part = <T>(path: string): T => require(`bullmq/dist/cjs/${path}`) as T;

export const { Queue } = part<Pick<typeof BullMQ, 'Queue'>>('classes/queue.js');
export const { Worker } = part<Pick<typeof BullMQ, 'Worker'>>('classes/worker.js');
export const { DelayedError } = part<Pick<typeof BullMQ, 'DelayedError'>>(
  'classes/errors/delayed-error.js',
);
export const { RateLimitError } = part<Pick<typeof BullMQ, 'RateLimitError'>>(
  'classes/errors/rate-limit-error.js',
);
export const { UnrecoverableError } = part<Pick<typeof BullMQ, 'UnrecoverableError'>>(
  'classes/errors/unrecoverable-error.js',
);
export const { ErrorCode } = part<Pick<typeof BullMQ, 'ErrorCode'>>('enums/error-code.js');
export const { createRedisBackend } =
  part<Pick<typeof BullMQ, 'createRedisBackend'>>('utils/create-backend.js');

/** The modules above, by the entry point's names (for the test that holds them to it). */
export const BULLMQ_PARTS = {
  Queue,
  Worker,
  DelayedError,
  RateLimitError,
  UnrecoverableError,
  ErrorCode,
  createRedisBackend,
} as const;
