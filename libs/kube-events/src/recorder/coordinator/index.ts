export { type ConnectionDown } from './connection-health.js';
export { DroppedOccurrences } from './dropped-occurrences.js';
export { WriteCoordinator } from './write-coordinator.js';
