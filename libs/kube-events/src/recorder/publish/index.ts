export { AwaitedPublish, type SettleWatcher } from './awaited-publish.js';
export { type Occurrence, identityDigest } from './occurrence.js';
export {
  type PublishOutcome,
  type PublishOutcomeKind,
  RecorderOutcomes,
  refusedOccurrence,
} from './publish-outcome.js';
