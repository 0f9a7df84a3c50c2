export { type ConnectionDown } from './coordinator-state.js';
export { DroppedOccurrences } from './dropped-occurrences.js';
export { WriteCoordinator } from './write-coordinator.js';
