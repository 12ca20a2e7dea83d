// JSON Schema (draft 2020-12) for every named wire schema, for SDKs in other languages and for
// protocol/schema/ (checked in; test/protocol/schema-drift.test.ts fails when it is stale).
// Pure: returns file contents, writes nothing. scripts/gen-protocol-schema.ts does the writing.
//
// Kept out of protocol/src/index.ts on purpose: the daemon bundle never needs toJSONSchema.
import * as z from 'zod/mini';
import { NAMED_SCHEMAS, PROTOCOL_LEVEL } from './index.js';

/** Version of agentd's wire contract (the latest entry of protocol/CHANGELOG.md). */
export const PROTOCOL_VERSION = '0.1.0';

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export type SchemaName = keyof typeof NAMED_SCHEMAS;

/**
 * Who writes the value. Inbound schemas describe what agentd *accepts* (zod's `input` side: loose objects,
 * unknown keys allowed); outbound ones what agentd *sends* (zod's `output` side: strict objects). The
 * protocol has no transforms or defaults today, so the two sides only differ in intent; choosing per
 * direction keeps the files right if one is ever added.
 */
export type Direction = 'inbound' | 'outbound';

/** Declared for every named schema; the type makes a new NAMED_SCHEMAS entry without a direction a compile error. */
export const SCHEMA_DIRECTIONS: Record<SchemaName, Direction> = {
  OutboundFrame: 'outbound',
  AssistantFrame: 'outbound',
  UserFrame: 'outbound',
  StreamEventFrame: 'outbound',
  ToolProgressFrame: 'outbound',
  ResultSuccessFrame: 'outbound',
  ResultErrorFrame: 'outbound',
  SystemInitFrame: 'outbound',
  SystemStatusFrame: 'outbound',
  SystemCompactBoundaryFrame: 'outbound',
  SystemApiRetryFrame: 'outbound',
  SystemSessionStateChangedFrame: 'outbound',
  SystemProtocolErrorFrame: 'outbound',
  SystemInternalErrorFrame: 'outbound',
  SystemPermissionDeniedFrame: 'outbound',
  ControlResponseSuccessFrame: 'outbound',
  ControlResponseErrorFrame: 'outbound',
  OutboundControlRequestFrame: 'outbound',
  CanUseToolRequest: 'outbound',
  HookCallbackRequest: 'outbound',
  McpMessageToHostRequest: 'outbound',
  ElicitationRequest: 'outbound',
  InitializeResponse: 'outbound',
  McpStatusResponse: 'outbound',
  McpMessageResponse: 'outbound',
  McpSetServersResponse: 'outbound',
  McpAuthenticateResponse: 'outbound',
  InterruptResponse: 'outbound',
  GenerateSessionTitleResponse: 'outbound',
  GetContextUsageResponse: 'outbound',
  RemoteControlResponse: 'outbound',
  ReloadOutputStylesResponse: 'outbound',
  SystemInformationalFrame: 'outbound',
  ReloadSkillsResponse: 'outbound',
  SystemTaskStartedFrame: 'outbound',
  SystemTaskProgressFrame: 'outbound',
  SystemTaskUpdatedFrame: 'outbound',
  SystemTaskNotificationFrame: 'outbound',
  SystemBackgroundTasksChangedFrame: 'outbound',
  SystemTranscriptRelinkedFrame: 'outbound',
  StopTaskRequest: 'inbound',
  InboundUserFrame: 'inbound',
  InboundControlRequestEnvelope: 'inbound',
  InitializeRequest: 'inbound',
  InterruptRequest: 'inbound',
  SetPermissionModeRequest: 'inbound',
  SetModelRequest: 'inbound',
  SetMaxThinkingTokensRequest: 'inbound',
  GenerateSessionTitleRequest: 'inbound',
  GetContextUsageRequest: 'inbound',
  RemoteControlRequest: 'inbound',
  ReloadOutputStylesRequest: 'inbound',
  ReloadSkillsRequest: 'inbound',
  McpMessageRequest: 'inbound',
  McpReconnectRequest: 'inbound',
  McpToggleRequest: 'inbound',
  McpSetServersRequest: 'inbound',
  McpAuthenticateRequest: 'inbound',
  McpOAuthCallbackUrlRequest: 'inbound',
  McpClearAuthRequest: 'inbound',
  InboundControlResponse: 'inbound',
  ControlCancelRequest: 'inbound',
  PermissionResult: 'inbound',
  HookJSONOutput: 'inbound',
  ElicitationResult: 'inbound',
};

export const SCHEMA_NAMES = Object.keys(NAMED_SCHEMAS).sort() as SchemaName[];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

// Keywords that read best first; everything else follows alphabetically. Sorting keeps the files stable
// across zod releases that emit keywords in another order.
const KEYWORD_ORDER = ['$schema', '$id', 'title', 'description', 'type', 'const', 'enum', 'properties', 'required'];
// Under these keywords the keys are names chosen by the protocol (field names, $defs), not keywords: they
// keep the order of the zod definition, which follows the protocol documentation.
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

function keywordRank(k: string): number {
  const i = KEYWORD_ORDER.indexOf(k);
  return i === -1 ? KEYWORD_ORDER.length : i;
}

function canonical(v: Json, isNameMap = false): Json {
  if (Array.isArray(v)) return v.map((x) => canonical(x));
  if (v === null || typeof v !== 'object') return v;
  const keys = Object.keys(v);
  if (!isNameMap) keys.sort((a, b) => keywordRank(a) - keywordRank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const out: { [k: string]: Json } = {};
  for (const k of keys) out[k] = canonical(v[k] as Json, !isNameMap && NAME_MAPS.has(k));
  return out;
}

/** The JSON Schema of one named schema, as a plain object (canonical key order, with title and description). */
export function jsonSchemaFor(name: SchemaName): Json {
  const direction = SCHEMA_DIRECTIONS[name];
  const generated = z.toJSONSchema(NAMED_SCHEMAS[name], {
    target: 'draft-2020-12',
    io: direction === 'inbound' ? 'input' : 'output',
    // Nothing in the protocol is unrepresentable today; if something becomes so, an open schema is the
    // honest answer for other languages (zod stays the authority).
    unrepresentable: 'any',
  });
  // Round-trip through JSON: drops undefined values and gives a plain Json value to canonicalise.
  // eslint-disable-next-line no-restricted-syntax -- a round trip of the schema zod just generated, not input.
  const plain = JSON.parse(JSON.stringify(generated)) as Json;
  const description =
    direction === 'inbound'
      ? `agentd protocol ${PROTOCOL_VERSION} (stream-json level ${PROTOCOL_LEVEL}): ${name}, written by the host. ` +
        'Liberal: unknown fields are allowed and ignored.'
      : `agentd protocol ${PROTOCOL_VERSION} (stream-json level ${PROTOCOL_LEVEL}): ${name}, written by agentd. ` +
        'Exact: agentd sends no field this schema does not list.';
  const withTitle = { ...(plain as { [k: string]: Json }), title: name, description };
  return canonical(withTitle);
}

function fileText(v: Json): string {
  return `${JSON.stringify(v, null, 2)}\n`;
}

/** Every file of protocol/schema/: `<Name>.json` per named schema plus `index.json`. File name → content. */
export function generateSchemas(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of SCHEMA_NAMES) files[`${name}.json`] = fileText(jsonSchemaFor(name));
  files['index.json'] = fileText({
    protocolVersion: PROTOCOL_VERSION,
    protocolLevel: PROTOCOL_LEVEL,
    dialect: JSON_SCHEMA_DIALECT,
    schemas: SCHEMA_NAMES.map((name) => ({
      name,
      file: `${name}.json`,
      direction: SCHEMA_DIRECTIONS[name],
      io: SCHEMA_DIRECTIONS[name] === 'inbound' ? 'input' : 'output',
    })),
  });
  return files;
}
