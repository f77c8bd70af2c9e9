/**
 * Retention (RETENTION_DAYS): handled files and the rows nothing needs any more, pruned daily and
 * at start. The only door into src/retention/ for the other folders.
 */

export {
  createRetention,
  type Retention,
  type RetentionEdges,
  type RetentionResult,
} from './retention.ts';
