// The event types live below the loop (src/thread/events.ts) so the executor and the store need not import the
// session; re-exported here for the callers that name them by the session.
export type * from '../thread/events.js';
