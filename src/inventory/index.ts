/**
 * Ingestion: the inbox watcher, file processing, the snapshot source, decisions on what the
 * guard rails hold, and the dry run. The only door into src/inventory/ for the other folders
 * (.dependency-cruiser.cjs): the jobs call the service `createIngestion` builds (ingestion.ts);
 * the commands and the console call the operator's decisions and the dry run below. Inside, the
 * layers are inbox | parse | staging → validate → apply → ingest | snapshot → held | plan |
 * suggest (each imports only those before it).
 */

export { type GuardReport, guardThresholds } from './apply/guardFile.ts';
export { finishHeldDecisions } from './held/finishDecisions.ts';
export { HeldDecisionError } from './held/heldLookup.ts';
export { type RejectResult, rejectHeld } from './held/reject.ts';
export { type ReleaseResult, releaseHeld } from './held/release.ts';
export {
  FileChangedError,
  type FileOutcome,
  type IngestDeps,
  processInboxFile,
} from './ingest/process.ts';
export { recoverInbox } from './ingest/recover.ts';
export type { FileReport } from './ingest/report.ts';
export {
  createIngestion,
  type Ingestion,
  type IngestionEdges,
  type IngestionSettings,
  type IngestResult,
} from './ingestion.ts';
export { type FilePlan, planFile } from './plan/planFile.ts';
export { readSnapshot, type SnapshotDeps } from './snapshot/read.ts';
export { SnapshotReadError } from './snapshot/snapshotFailure.ts';
export type { SourceEvents, Sources } from './sources.ts';
export { profileText } from './suggest/profileText.ts';
export { type SuggestedRow, type Suggestion, suggestProfile } from './suggest/suggestProfile.ts';
export {
  createDcDirectory,
  type DcDirectory,
  DcListUnavailableError,
} from './validate/dcDirectory.ts';
export { KIND_LABEL } from './validate/kinds.ts';
