// The wire contract of agentd. Everything a frame can be is defined here and nowhere else.
import * as z from 'zod/mini';
import {
  ElicitationRequest,
  ElicitationResult,
  GenerateSessionTitleRequest,
  GetContextUsageRequest,
  InitializeRequest,
  InterruptRequest,
  McpMessageRequest,
  McpMessageToHostRequest,
  McpReconnectRequest,
  McpSetServersRequest,
  McpSetServersResponse,
  McpToggleRequest,
  ReloadOutputStylesRequest,
  ReloadOutputStylesResponse,
  ReloadSkillsRequest,
  StopTaskRequest,
  RemoteControlRequest,
  SetMaxThinkingTokensRequest,
  SetModelRequest,
  SetPermissionModeRequest,
} from './control.js';
import {
  GenerateSessionTitleResponse,
  GetContextUsageResponse,
  InitializeResponse,
  InterruptResponse,
  McpMessageResponse,
  McpStatusResponse,
  ReloadSkillsResponse,
  RemoteControlResponse,
  McpAuthenticateResponse,
} from './control-responses.js';
import { InboundUserFrame } from './user-frame.js';
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
import { SystemTranscriptRelinkedFrame } from './transcript-frames.js';
import { McpAuthenticateRequest, McpClearAuthRequest, McpOAuthCallbackUrlRequest } from './mcp-auth.js';
import { CanUseToolRequest, PermissionResult } from './permissions.js';
import { SystemBackgroundTasksChangedFrame, SystemTaskNotificationFrame, SystemTaskProgressFrame, SystemTaskStartedFrame, SystemTaskUpdatedFrame } from './task-frames.js';

export * from './commands.js';
export * from './control.js';
export * from './control-responses.js';
export * from './assistant-errors.js';
export * from './envelope.js';
export * from './hooks.js';
export * from './inbound.js';
export * from './messages.js';
export * from './mcp-auth.js';
export * from './user-frame.js';
export * from './permissions.js';
export * from './task-frames.js';
export * from './transcript-frames.js';

export { PROTOCOL_LEVEL } from './runtime.js';

export const OutboundControlRequestFrame = z.lazy(() => z.strictObject({
  type: z.literal('control_request'),
  request_id: z.string(),
  request: z.union([CanUseToolRequest, HookCallbackRequest, McpMessageToHostRequest, ElicitationRequest]),
}));
export type OutboundControlRequestFrame = z.infer<typeof OutboundControlRequestFrame>;

/** Every frame agentd may write to stdout. Tests validate each stdout line against this. */
export const OutboundFrame = z.lazy(() => z.union([
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
  SystemTranscriptRelinkedFrame,
  SystemTaskStartedFrame,
  SystemTaskProgressFrame,
  SystemTaskUpdatedFrame,
  SystemTaskNotificationFrame,
  SystemBackgroundTasksChangedFrame,
  ControlResponseSuccessFrame,
  ControlResponseErrorFrame,
  OutboundControlRequestFrame,
  OutboundControlCancelFrame,
  OutboundKeepAliveFrame,
]));
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
  SystemTaskStartedFrame,
  SystemTaskProgressFrame,
  SystemTaskUpdatedFrame,
  SystemTaskNotificationFrame,
  SystemBackgroundTasksChangedFrame,
  SystemTranscriptRelinkedFrame,
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
  StopTaskRequest,
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
