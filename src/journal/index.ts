/** What the composition root uses of the journal. */
export { noteErrorBodies, recordInJournal } from './journal.js';
export { JournalEntry, journalOperations } from './operations.js';
export { journalRouter } from './routes.js';
