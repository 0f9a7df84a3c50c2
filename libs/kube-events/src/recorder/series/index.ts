export { EndedEvents } from './ended-events.js';
export { SeriesIndex } from './series-index.js';
export {
  type RetryCause,
  failedWrite,
  heldByConnection,
  probe,
  queued,
  retryNow,
  serverBack,
  writing,
  written,
} from './series-state.js';
export {
  type Batch,
  type BatchAttempts,
  type InDoubtCreate,
  type KeptObjects,
  type Series,
  type SeriesEvent,
  type TrackedObject,
} from './series.js';
export { SimilarEvents } from './similar-events.js';
export {
  type CreatePlan,
  type FindPlan,
  type PatchPlan,
  type StoredEvent,
  type WritePlan,
  type WriteResult,
} from './write-plan.js';
