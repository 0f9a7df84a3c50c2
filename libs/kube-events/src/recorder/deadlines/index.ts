export { PublishDeadlines } from './publish-deadlines.js';
