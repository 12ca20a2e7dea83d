// The accept/reject corpora of protocol/fixtures (see protocol/README.md).
//  - accept/<Schema>/*.json: each value is accepted by the zod schema AND by the generated JSON Schema (so the
//    files other languages use agree with agentd); outbound frames also by OutboundFrame; inbound frames are
//    classified as the right kind.
//  - reject/*.json ({description, line, expect}): each raw line, fed to the real Router, gets exactly the
//    answer `expect` names (an error control_response when a request id is recoverable, else a
//    system/protocol_error), the pure classifier agrees, and the JSON Schema of the rejecting stage rejects too.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import {
  CONTROL_REQUEST_SCHEMAS,
  ERROR_CODES,
  NAMED_SCHEMAS,
  OutboundFrame,
  SUPPORTED_CONTROL_SUBTYPES,
  classifyInbound,
} from '../../protocol/src/index.js';
import { SCHEMA_DIRECTIONS, type SchemaName, jsonSchemaFor } from '../../protocol/src/json-schema.js';
import { ControlClient } from '../../src/control/outbound.js';
import { Projector } from '../../src/control/projector.js';
import { type ControlHandlers, type HandlerResult, Router } from '../../src/control/router.js';
import { silentLogger } from '../../src/log/logger.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'protocol', 'fixtures');
const ACCEPT = join(FIXTURES, 'accept');
const REJECT = join(FIXTURES, 'reject');

function isSchemaName(s: string): s is SchemaName {
  return Object.hasOwn(NAMED_SCHEMAS, s);
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
const validators = new Map<SchemaName, ReturnType<typeof ajv.compile>>();
function jsonSchemaAccepts(name: SchemaName, value: unknown): { ok: boolean; errors: string } {
  let v = validators.get(name);
  if (!v) {
    v = ajv.compile(jsonSchemaFor(name) as object);
    validators.set(name, v);
  }
  // Our schemas have no $async, so validation is synchronous: anything but `true` is a failure.
  const ok = v(value) === true;
  return { ok, errors: ajv.errorsText(v.errors) };
}

function zodIssues(error: z.core.$ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

// ---------------------------------------------------------------- accept

const acceptDirs = readdirSync(ACCEPT).sort();
const acceptCases = acceptDirs.flatMap((dir) =>
  readdirSync(join(ACCEPT, dir))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ dir, file, value: readJson(join(ACCEPT, dir, file)) })),
);

/** How agentd's router sees an inbound fixture: the frame itself, or the payload wrapped in its frame. */
function asInboundFrame(dir: SchemaName, value: unknown): { frame: unknown; kind: string } | undefined {
  switch (dir) {
    case 'InboundUserFrame':
      return { frame: value, kind: 'user' };
    case 'InboundControlRequestEnvelope':
      return { frame: value, kind: 'control_request' };
    case 'InboundControlResponse':
      return { frame: value, kind: 'control_response' };
    case 'ControlCancelRequest':
      return { frame: value, kind: 'control_cancel_request' };
    case 'InitializeRequest':
    case 'InterruptRequest':
    case 'SetPermissionModeRequest':
    case 'SetModelRequest':
    case 'SetMaxThinkingTokensRequest':
      return { frame: { type: 'control_request', request_id: 'fixture', request: value }, kind: 'control_request' };
    case 'PermissionResult':
    case 'HookJSONOutput':
      return {
        frame: { type: 'control_response', response: { subtype: 'success', request_id: 'fixture', response: value } },
        kind: 'control_response',
      };
    default:
      return undefined;
  }
}

describe('accept corpus', () => {
  it('has a directory per named schema and none for unknown names', () => {
    expect(acceptDirs.filter((d) => !isSchemaName(d))).toEqual([]);
    const covered = new Set(acceptCases.map((c) => c.dir));
    expect(Object.keys(NAMED_SCHEMAS).filter((n) => !covered.has(n))).toEqual([]);
  });

  it.each(acceptCases.map((c) => [`${c.dir}/${c.file}`, c] as const))('%s', (_label, c) => {
    if (!isSchemaName(c.dir)) throw new Error(`unknown schema directory ${c.dir}`);
    const r = NAMED_SCHEMAS[c.dir].safeParse(c.value);
    expect(r.success ? '' : zodIssues(r.error), 'zod schema').toBe('');
    const js = jsonSchemaAccepts(c.dir, c.value);
    expect(js.ok ? '' : js.errors, 'generated JSON Schema').toBe('');

    if (SCHEMA_DIRECTIONS[c.dir] === 'outbound' && c.dir.endsWith('Frame')) {
      const o = OutboundFrame.safeParse(c.value);
      expect(o.success ? '' : zodIssues(o.error), 'OutboundFrame').toBe('');
    }
    const inbound = asInboundFrame(c.dir, c.value);
    if (inbound) {
      const classified = classifyInbound(inbound.frame);
      expect(classified.kind).toBe(inbound.kind);
      if (classified.kind === 'control_request') {
        const subtype = classified.frame.request.subtype;
        const schema = (CONTROL_REQUEST_SCHEMAS as Record<string, z.ZodMiniType>)[subtype];
        // A subtype agentd does not implement is still a valid envelope (it gets unsupported_request).
        if (schema) expect(schema.safeParse(classified.frame.request).success).toBe(true);
      }
    }
  });
});

// ---------------------------------------------------------------- reject

const RejectFixture = z.strictObject({
  description: z.string().check(z.minLength(1)),
  line: z.string(),
  expect: z.strictObject({
    code: z.enum(ERROR_CODES),
    requestId: z.optional(z.string()),
  }),
});
type RejectFixture = z.infer<typeof RejectFixture>;

const rejectCases = readdirSync(REJECT)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, fixture: RejectFixture.parse(readJson(join(REJECT, file))) }));

/** Codes produced after a frame classified fine (by the control router), not by classifyInbound itself. */
const POST_CLASSIFICATION = new Set(['unsupported_request', 'invalid_request', 'not_allowed']);

const PAYLOAD_SCHEMA_NAMES: Record<string, SchemaName> = {
  initialize: 'InitializeRequest',
  interrupt: 'InterruptRequest',
  set_permission_mode: 'SetPermissionModeRequest',
  set_model: 'SetModelRequest',
  set_max_thinking_tokens: 'SetMaxThinkingTokensRequest',
};

/** The named schema (and value) whose rejection a reject fixture exercises, when there is one. */
function rejectingSchema(value: unknown): { name: SchemaName; value: unknown } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  switch (v['type']) {
    case 'user':
      return { name: 'InboundUserFrame', value };
    case 'control_response':
      return { name: 'InboundControlResponse', value };
    case 'control_cancel_request':
      return { name: 'ControlCancelRequest', value };
    case 'control_request': {
      const c = classifyInbound(value);
      if (c.kind !== 'control_request') return { name: 'InboundControlRequestEnvelope', value };
      const name = PAYLOAD_SCHEMA_NAMES[c.frame.request.subtype];
      return name ? { name, value: c.frame.request } : undefined;
    }
    default:
      return undefined;
  }
}

async function runRouter(line: string): Promise<{ frames: unknown[]; reached: string[] }> {
  const frames: unknown[] = [];
  const reached: string[] = [];
  const out = {
    write: (f: unknown): undefined => {
      frames.push(f);
      return undefined;
    },
  };
  const refuse = (): HandlerResult => {
    reached.push('handler');
    return { ok: false, code: 'request_failed', error: 'a reject fixture must not reach a handler' };
  };
  const handlers: ControlHandlers = {
    initialize: refuse,
    interrupt: refuse,
    set_permission_mode: refuse,
    set_model: refuse,
    set_max_thinking_tokens: refuse,
    mcp_status: refuse,
    stop_task: refuse,
    mcp_message: refuse,
    mcp_reconnect: refuse,
    mcp_toggle: refuse,
    mcp_set_servers: refuse,
    mcp_authenticate: refuse,
    mcp_oauth_callback_url: refuse,
    mcp_clear_auth: refuse,
    set_mcp_permission_mode_override: refuse,
    reload_output_styles: refuse,
    generate_session_title: refuse,
    get_context_usage: refuse,
    remote_control: refuse,
    reload_skills: refuse,
  };
  let n = 0;
  const router = new Router({
    out,
    projector: new Projector(out, {
      sessionId: 'session-under-test',
      includePartialMessages: false,
      includeHookEvents: false,
      usageFrames: false,
      sessionState: 'none',
      agentdVersion: '0.0.0-test',
      initInfo: () => {
        throw new Error('init not expected');
      },
      newUuid: () => `uuid-${++n}`,
      now: () => 0,
    }),
    client: new ControlClient(out, () => `out-${++n}`),
    handlers,
    onUser: () => reached.push('user'),
    onCancel: () => reached.push('cancel'),
    logger: silentLogger(),
  });
  await router.handle({ kind: 'line', text: line, lineNumber: 1, bytes: Buffer.byteLength(line), unterminated: false });
  return { frames, reached };
}

describe('reject corpus', () => {
  it('has at least 30 cases covering every inbound classification code', () => {
    expect(rejectCases.length).toBeGreaterThanOrEqual(30);
    const codes = new Set(rejectCases.map((c) => c.fixture.expect.code));
    for (const code of [
      'invalid_json',
      'not_an_object',
      'unknown_frame_type',
      'invalid_frame',
      'missing_request_id',
      'invalid_request',
      'unsupported_request',
    ]) {
      expect(codes.has(code as RejectFixture['expect']['code']), code).toBe(true);
    }
  });

  it.each(rejectCases.map((c) => [c.file, c.fixture] as const))('%s', async (_file, fx) => {
    expect(fx.line.includes('\n'), 'a fixture line holds no newline').toBe(false);

    // 1. The pure classification agrees with the fixture.
    let value: unknown;
    let parsed = true;
    try {
      value = JSON.parse(fx.line);
    } catch {
      parsed = false;
    }
    if (!parsed) {
      expect(fx.expect.code).toBe('invalid_json');
    } else {
      const c = classifyInbound(value);
      if (c.kind === 'rejected') {
        expect({ code: c.code, requestId: c.requestId }).toEqual({ code: fx.expect.code, requestId: fx.expect.requestId });
      } else {
        expect(POST_CLASSIFICATION.has(fx.expect.code), `classified as ${c.kind}, so only a router-level code fits`).toBe(true);
        if (c.kind === 'control_request' && (SUPPORTED_CONTROL_SUBTYPES as readonly string[]).includes(c.frame.request.subtype)) {
          const schema = (CONTROL_REQUEST_SCHEMAS as Record<string, z.ZodMiniType>)[c.frame.request.subtype];
          expect(schema?.safeParse(c.frame.request).success).toBe(false);
        }
      }
      // 2. The JSON Schema of the stage that rejects agrees (other-language SDKs reject it too).
      const stage = rejectingSchema(value);
      if (stage && fx.expect.code !== 'unsupported_request') {
        expect(jsonSchemaAccepts(stage.name, stage.value).ok, `${stage.name} JSON Schema accepts it`).toBe(false);
      }
    }

    // 3. The real router answers exactly once, with the expected code, and nothing reaches the session.
    const { frames, reached } = await runRouter(fx.line);
    expect(reached).toEqual([]);
    const expected =
      fx.expect.requestId !== undefined
        ? {
            type: 'control_response',
            response: { subtype: 'error', request_id: fx.expect.requestId, error: expect.any(String), error_code: fx.expect.code },
          }
        : {
            type: 'system',
            subtype: 'protocol_error',
            error_code: fx.expect.code,
            message: expect.any(String),
            line_number: 1,
            line_bytes: Buffer.byteLength(fx.line),
            uuid: expect.any(String),
            session_id: 'session-under-test',
          };
    expect(frames).toEqual([expected]);
    for (const f of frames) expect(OutboundFrame.safeParse(f).success).toBe(true);
  });
});
