// The wire contract of agentd. Everything a frame can be is defined here and nowhere else.
import * as z from 'zod/mini';
import {
  ElicitationRequest,
  ElicitationResult,
  GenerateSessionTitleRequest,
  GenerateSessionTitleResponse,
  GetContextUsageRequest,
  GetContextUsageResponse,
  InitializeRequest,
  InitializeResponse,
  InterruptRequest,
  InterruptResponse,
  McpMessageRequest,
  McpMessageResponse,
  McpMessageToHostRequest,
  McpReconnectRequest,
  McpSetServersRequest,
  McpSetServersResponse,
  McpStatusResponse,
  McpToggleRequest,
  ReloadOutputStylesRequest,
  ReloadOutputStylesResponse,
  ReloadSkillsRequest,
  ReloadSkillsResponse,
  RemoteControlRequest,
  RemoteControlResponse,
  SetMaxThinkingTokensRequest,
  SetModelRequest,
  SetPermissionModeRequest,
} from './control.js';
import {
  ControlCancelRequest,
  ControlResponseErrorFrame,
  ControlResponseSuccessFrame,
  InboundControlRequestEnvelope,
  InboundControlResponse,
  OutboundControlCancelFrame,
  OutboundKeepAliveFrame,
} from './envelope.js';
import { HookCallbackRequest, HookJSONOutput } from './hooks.js';
import { ConversationResetFrame, SystemCommandsChangedFrame } from './commands.js';
import {
  AssistantFrame,
  InboundUserFrame,
  ResultErrorFrame,
  ResultSuccessFrame,
  StreamEventFrame,
  SystemApiRetryFrame,
  SystemHookProgressFrame,
  SystemHookResponseFrame,
  SystemHookStartedFrame,
  SystemInitFrame,
  SystemPermissionDeniedFrame,
  SystemProtocolErrorFrame,
  SystemInternalErrorFrame,
  SystemSessionStateChangedFrame,
  SystemStatusFrame,
  SystemCompactBoundaryFrame,
  SystemUsageFrame,
  SystemSessionWritesLostFrame,
  SystemInformationalFrame,
  SystemAgentdWarningFrame,
  ToolProgressFrame,
  UserFrame,
} from './messages.js';
import { McpAuthenticateRequest, McpAuthenticateResponse, McpClearAuthRequest, McpOAuthCallbackUrlRequest } from './mcp-auth.js';
import { CanUseToolRequest, PermissionResult } from './permissions.js';

export * from './commands.js';
export * from './control.js';
export * from './envelope.js';
export * from './hooks.js';
export * from './inbound.js';
export * from './messages.js';
export * from './mcp-auth.js';
export * from './permissions.js';

/** The protocol level agentd speaks: the Claude Code CLI version whose stream-json protocol it implements. */
export const PROTOCOL_LEVEL = '2.1.330';

export const OutboundControlRequestFrame = z.strictObject({
  type: z.literal('control_request'),
  request_id: z.string(),
  request: z.union([CanUseToolRequest, HookCallbackRequest, McpMessageToHostRequest, ElicitationRequest]),
});
export type OutboundControlRequestFrame = z.infer<typeof OutboundControlRequestFrame>;

/** Every frame agentd may write to stdout. Tests validate each stdout line against this. */
export const OutboundFrame = z.union([
  AssistantFrame,
  UserFrame,
  StreamEventFrame,
  ToolProgressFrame,
  ResultSuccessFrame,
  ResultErrorFrame,
  SystemInitFrame,
  SystemStatusFrame,
  SystemCompactBoundaryFrame,
  SystemApiRetryFrame,
  SystemSessionStateChangedFrame,
  SystemProtocolErrorFrame,
  SystemInternalErrorFrame,
  SystemPermissionDeniedFrame,
  SystemHookStartedFrame,
  SystemHookProgressFrame,
  SystemHookResponseFrame,
  SystemUsageFrame,
  SystemSessionWritesLostFrame,
  SystemInformationalFrame,
  SystemCommandsChangedFrame,
  ConversationResetFrame,
  SystemAgentdWarningFrame,
  ControlResponseSuccessFrame,
  ControlResponseErrorFrame,
  OutboundControlRequestFrame,
  OutboundControlCancelFrame,
  OutboundKeepAliveFrame,
]);
export type OutboundFrame = z.infer<typeof OutboundFrame>;

/** Named schemas, for the JSON Schema generator and the fixture corpus (accept/<Name>/*.json). */
export const NAMED_SCHEMAS = {
  OutboundFrame,
  AssistantFrame,
  UserFrame,
  StreamEventFrame,
  ToolProgressFrame,
  ResultSuccessFrame,
  ResultErrorFrame,
  SystemInitFrame,
  SystemStatusFrame,
  SystemCompactBoundaryFrame,
  SystemApiRetryFrame,
  SystemSessionStateChangedFrame,
  SystemProtocolErrorFrame,
  SystemInternalErrorFrame,
  SystemPermissionDeniedFrame,
  ControlResponseSuccessFrame,
  ControlResponseErrorFrame,
  OutboundControlRequestFrame,
  // Payloads agentd sends inside control frames.
  CanUseToolRequest,
  HookCallbackRequest,
  McpMessageToHostRequest,
  ElicitationRequest,
  InitializeResponse,
  McpStatusResponse,
  McpMessageResponse,
  McpSetServersResponse,
  McpAuthenticateResponse,
  InterruptResponse,
  GenerateSessionTitleResponse,
  GetContextUsageResponse,
  RemoteControlResponse,
  ReloadOutputStylesResponse,
  SystemInformationalFrame,
  ReloadSkillsResponse,
  // Inbound (host → agentd): frames, control request payloads and the host's answers.
  InboundUserFrame,
  InboundControlRequestEnvelope,
  InitializeRequest,
  InterruptRequest,
  SetPermissionModeRequest,
  SetModelRequest,
  SetMaxThinkingTokensRequest,
  GenerateSessionTitleRequest,
  GetContextUsageRequest,
  RemoteControlRequest,
  ReloadOutputStylesRequest,
  ReloadSkillsRequest,
  McpMessageRequest,
  McpReconnectRequest,
  McpToggleRequest,
  McpSetServersRequest,
  McpAuthenticateRequest,
  McpOAuthCallbackUrlRequest,
  McpClearAuthRequest,
  InboundControlResponse,
  ControlCancelRequest,
  PermissionResult,
  HookJSONOutput,
  ElicitationResult,
} as const;
