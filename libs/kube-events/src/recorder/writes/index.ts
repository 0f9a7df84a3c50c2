export { EventRequests } from './event-requests.js';
export { WriteLedger } from './write-ledger.js';
export { WriteMarks } from './write-marks.js';
export { WritePlanner } from './write-planner.js';
export { WriteQueue } from './write-queue.js';
export { type EndedWrite, WriteSender } from './write-sender.js';
