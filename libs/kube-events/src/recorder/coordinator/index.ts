export { type ConnectionDown } from './coordinator-state.js';
export { DroppedOccurrences } from './dropped-occurrences.js';
export { type ScheduledPublish, WriteCoordinator } from './write-coordinator.js';
