/** What the composition root and other features use of the journal. */
export { journalAnswer } from './answers.js';
export { noteErrorBodies, recordInJournal } from './journal.js';
export { JournalEntry, journalOperations, listRequestsOp } from './operations.js';
export { journalRouter } from './routes.js';
