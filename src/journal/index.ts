/** What the composition root uses of the journal. */
export { requestLogger } from './journal.js';
export { journalRouter } from './routes.js';
