// Moved below the loop: src/thread/conversation.ts.
export { Conversation } from '../thread/conversation.js';
