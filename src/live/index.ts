/** What other features use of live events. */
export { accountChannel, publishAccountEvent, type AccountEvent } from './events.js';
export { DEFAULT_LIVE_LIMITS, LiveStreams, type LiveStreamLimits } from './streams.js';
