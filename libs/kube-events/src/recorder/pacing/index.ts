export {
  type ConnectionVerdict,
  connectionVerdict,
  contentionDelay,
  credentialRetryDelay,
  PROBE_INTERVAL_MS,
  retryAt,
  unreachableRetryAt,
  isOverloaded,
  isThrottled,
  isTransient,
  mayHaveApplied,
} from './retry-policy.js';
export { WriteBudget } from './write-budget.js';
export { type DueWrites, WriteScheduler } from './write-scheduler.js';
