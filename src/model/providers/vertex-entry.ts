// @anthropic-ai/vertex-sdk's one home, and its own bundle (dist/agentd-vertex.js, loaded with the first model call
// when CLAUDE_CODE_USE_VERTEX is set; google-auth-library comes with it). Error classes as in bedrock-entry.ts.
export { AnthropicVertex as Client } from '@anthropic-ai/vertex-sdk';
export { AnthropicError, APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from '@anthropic-ai/sdk';
