// The assistant message `error` values (Claude Code's), needed at run time by the projector (runtime.ts).
export const ASSISTANT_MESSAGE_ERRORS = [
  'authentication_failed',
  'billing_error',
  'rate_limit',
  'overloaded',
  'invalid_request',
  'model_not_found',
  'server_error',
  'unknown',
  'max_output_tokens',
] as const;
