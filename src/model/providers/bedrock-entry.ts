// @anthropic-ai/bedrock-sdk's one home, and its own bundle (dist/agentd-bedrock.js, loaded with the first model
// call when CLAUDE_CODE_USE_BEDROCK is set). The SDK's error classes are exported from the same bundle so errors
// are recognised by the copy of @anthropic-ai/sdk that made them.
export { AnthropicBedrock as Client } from '@anthropic-ai/bedrock-sdk';
export { AnthropicError, APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from '@anthropic-ai/sdk';
