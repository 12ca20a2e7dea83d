// @anthropic-ai/foundry-sdk's one home, and its own bundle (dist/agentd-foundry.js, loaded with the first model
// call when CLAUDE_CODE_USE_FOUNDRY is set). Error classes as in bedrock-entry.ts.
export { AnthropicFoundry as Client } from '@anthropic-ai/foundry-sdk';
export { AnthropicError, APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from '@anthropic-ai/sdk';
