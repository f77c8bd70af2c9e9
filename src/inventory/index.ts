/** Ingestion: the inbox watcher, file processing, the snapshot source, and their parts. */
export {
  createDcDirectory,
  type DcDirectory,
  type DcDirectoryDeps,
  DcListUnavailableError,
  type DcStatus,
} from './dcDirectory.ts';
export { collectFile } from './ingest/collect.ts';
export {
  FileChangedError,
  type FileOutcome,
  type FileStatus,
  type IngestDeps,
  processInboxFile,
} from './ingest/process.ts';
export { recoverInbox } from './ingest/recover.ts';
export type { FileReport } from './ingest/report.ts';
export { fileIdentity, type InboxEntry, isIgnoredName } from './names.ts';
export { readSnapshot, type SnapshotDeps, type SnapshotOutcome } from './snapshot/read.ts';
export { SnapshotWatcher, type SnapshotWatcherOptions } from './snapshot/watcher.ts';
export { InboxWatcher, type InboxWatcherOptions } from './watcher/inboxWatcher.ts';
