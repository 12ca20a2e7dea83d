// Envelopes shared by both directions (protocol.md §3).
// Inbound schemas are loose (unknown fields ignored); outbound ones are strict so tests catch stray fields.
import * as z from 'zod/mini';

/** Error codes agentd uses on the wire; the format matches the SDK's `error_code` rule ^[a-z][a-z0-9_]{0,63}$. */
export const ERROR_CODES = [
  'invalid_json',
  'line_too_long',
  'invalid_utf8',
  'truncated_line',
  'not_an_object',
  'unknown_frame_type',
  'invalid_frame',
  'missing_request_id',
  'unsupported_request',
  'invalid_request',
  'request_failed',
  'session_busy',
  'not_allowed',
  'not_available',
  'internal',
  // mcp_authenticate (Claude Code's codes): the host's redirect URI cannot be used; no client registration possible.
  'mcp_redirect_uri_unusable',
  'mcp_client_registration_unavailable',
] as const;
export const ErrorCode = z.lazy(() => z.enum(ERROR_CODES));
export type ErrorCode = z.infer<typeof ErrorCode>;

export const InboundControlRequestEnvelope = z.lazy(() => z.looseObject({
  type: z.literal('control_request'),
  request_id: z.string().check(z.minLength(1)),
  request: z.looseObject({ subtype: z.string() }),
}));
export type InboundControlRequestEnvelope = z.infer<typeof InboundControlRequestEnvelope>;

export const InboundControlResponse = z.lazy(() => z.looseObject({
  type: z.literal('control_response'),
  response: z.union([
    z.looseObject({
      subtype: z.literal('success'),
      request_id: z.string(),
      response: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
    }),
    z.looseObject({
      subtype: z.literal('error'),
      request_id: z.string(),
      error: z.string(),
      error_code: z.optional(z.string()),
    }),
  ]),
}));
export type InboundControlResponse = z.infer<typeof InboundControlResponse>;

export const ControlCancelRequest = z.lazy(() => z.looseObject({
  type: z.literal('control_cancel_request'),
  request_id: z.string(),
}));
export type ControlCancelRequest = z.infer<typeof ControlCancelRequest>;

export const KeepAlive = z.lazy(() => z.looseObject({ type: z.literal('keep_alive') }));

export const UpdateEnvironmentVariables = z.lazy(() => z.looseObject({
  type: z.literal('update_environment_variables'),
  variables: z.record(z.string(), z.string()),
  request_id: z.optional(z.string()),
}));

// ---- outbound ----

export const ControlResponseSuccessFrame = z.lazy(() => z.strictObject({
  type: z.literal('control_response'),
  response: z.strictObject({
    subtype: z.literal('success'),
    request_id: z.string(),
    response: z.optional(z.record(z.string(), z.unknown())),
    pending_permission_requests: z.optional(z.array(z.unknown())),
  }),
}));
export type ControlResponseSuccessFrame = z.infer<typeof ControlResponseSuccessFrame>;

export const ControlResponseErrorFrame = z.lazy(() => z.strictObject({
  type: z.literal('control_response'),
  response: z.strictObject({
    subtype: z.literal('error'),
    request_id: z.string(),
    error: z.string(),
    error_code: z.optional(ErrorCode),
  }),
}));
export type ControlResponseErrorFrame = z.infer<typeof ControlResponseErrorFrame>;

export const OutboundControlCancelFrame = z.lazy(() => z.strictObject({
  type: z.literal('control_cancel_request'),
  request_id: z.string(),
}));
export type OutboundControlCancelFrame = z.infer<typeof OutboundControlCancelFrame>;

export const OutboundKeepAliveFrame = z.lazy(() => z.strictObject({ type: z.literal('keep_alive') }));
