// Classifies one decoded inbound JSON value into a typed frame or a typed rejection. Pure: no I/O, no logging.
import * as z from 'zod/mini';
import {
  ControlCancelRequest,
  type ErrorCode,
  InboundControlRequestEnvelope,
  InboundControlResponse,
  KeepAlive,
  UpdateEnvironmentVariables,
} from './envelope.js';
import { InboundUserFrame } from './user-frame.js';

export type InboundFrame =
  | { kind: 'user'; frame: InboundUserFrame }
  | { kind: 'control_request'; frame: InboundControlRequestEnvelope }
  | { kind: 'control_response'; frame: InboundControlResponse }
  | { kind: 'control_cancel_request'; frame: z.infer<typeof ControlCancelRequest> }
  | { kind: 'keep_alive' }
  | { kind: 'update_environment_variables'; frame: z.infer<typeof UpdateEnvironmentVariables> };

export interface InboundRejection {
  kind: 'rejected';
  code: ErrorCode;
  message: string;
  /** Present when the frame carried a usable request id, so the answer can be a control_response. */
  requestId?: string;
  /**
   * For a malformed control_response: the id of the request it answers, when recoverable, so that request fails
   * at once (a permission request is then denied) instead of waiting for an answer that will not come.
   */
  answersRequestId?: string;
}

export type Classified = InboundFrame | InboundRejection;

function issuesText(error: z.core.$ZodError): string {
  // Paths and messages only: never the offending values, which may be large or secret.
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function classifyInbound(value: unknown): Classified {
  if (!isRecord(value)) {
    return { kind: 'rejected', code: 'not_an_object', message: 'Each line must be a JSON object.' };
  }
  const type = value['type'];
  switch (type) {
    case 'user': {
      const r = InboundUserFrame.safeParse(value);
      return r.success
        ? { kind: 'user', frame: r.data }
        : { kind: 'rejected', code: 'invalid_frame', message: `Invalid user frame: ${issuesText(r.error)}` };
    }
    case 'control_request': {
      const r = InboundControlRequestEnvelope.safeParse(value);
      if (r.success) return { kind: 'control_request', frame: r.data };
      const rid = value['request_id'];
      if (typeof rid === 'string' && rid.length > 0) {
        return {
          kind: 'rejected',
          code: 'invalid_request',
          message: `Invalid control_request: ${issuesText(r.error)}`,
          requestId: rid,
        };
      }
      return {
        kind: 'rejected',
        code: 'missing_request_id',
        message: 'control_request without a request_id cannot be answered.',
      };
    }
    case 'control_response': {
      const r = InboundControlResponse.safeParse(value);
      if (r.success) return { kind: 'control_response', frame: r.data };
      const inner = value['response'];
      const rid = isRecord(inner) ? inner['request_id'] : undefined;
      return {
        kind: 'rejected',
        code: 'invalid_frame',
        message: `Invalid control_response: ${issuesText(r.error)}`,
        ...(typeof rid === 'string' && rid.length > 0 ? { answersRequestId: rid } : {}),
      };
    }
    case 'control_cancel_request': {
      const r = ControlCancelRequest.safeParse(value);
      return r.success
        ? { kind: 'control_cancel_request', frame: r.data }
        : { kind: 'rejected', code: 'invalid_frame', message: `Invalid control_cancel_request: ${issuesText(r.error)}` };
    }
    case 'keep_alive':
      return KeepAlive.safeParse(value).success
        ? { kind: 'keep_alive' }
        : { kind: 'rejected', code: 'invalid_frame', message: 'Invalid keep_alive.' };
    case 'update_environment_variables': {
      const r = UpdateEnvironmentVariables.safeParse(value);
      return r.success
        ? { kind: 'update_environment_variables', frame: r.data }
        : { kind: 'rejected', code: 'invalid_frame', message: `Invalid update_environment_variables: ${issuesText(r.error)}` };
    }
    default:
      return {
        kind: 'rejected',
        code: 'unknown_frame_type',
        message:
          typeof type === 'string'
            ? `Unknown frame type: ${JSON.stringify(type.slice(0, 64))}`
            : 'Frame has no string "type".',
      };
  }
}

/** Parses a control request payload against a subtype schema, giving a readable message on failure. */
export function parseControlPayload<S extends z.ZodMiniType>(
  schema: S,
  payload: unknown,
): { ok: true; value: z.infer<S> } | { ok: false; message: string } {
  const r = schema.safeParse(payload);
  return r.success ? { ok: true, value: r.data } : { ok: false, message: issuesText(r.error) };
}
