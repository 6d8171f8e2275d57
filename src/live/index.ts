/** What other features use of live events. */
export { accountChannel, publishAccountEvent, type AccountEvent } from './events.js';
