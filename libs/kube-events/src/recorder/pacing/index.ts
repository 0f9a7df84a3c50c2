export {
  contentionDelay,
  credentialRetryDelay,
  PROBE_INTERVAL_MS,
  retryAt,
  unreachableRetryAt,
} from './retry-policy.js';
export { WriteBudgets } from './budgets.js';
export { SpentBudgets } from './spent-budgets.js';
export { TokenBucket } from './token-bucket.js';
export { type DueWrites, WriteScheduler } from './scheduler.js';
