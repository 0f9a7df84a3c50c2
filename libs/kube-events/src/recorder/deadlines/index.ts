export { PublishDeadlines } from './publish-deadlines.js';
export { RequestDeadlines } from './request-deadlines.js';
