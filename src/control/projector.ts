// The only place that knows frame shapes: internal SessionEvents in, protocol frames out.
import type { AssistantFrame, AssistantMessageError, ErrorCode, InboundControlResponse, ResultFrame, StreamEventFrame, SystemInitFrame, UserFrame } from '../../protocol/src/index.js';
import { ASSISTANT_MESSAGE_ERRORS, PROTOCOL_LEVEL } from '../../protocol/src/runtime.js';
import { RAW_JSON, type WithRaw } from '../model/types.js';
import type { SessionEvent, TurnResult } from '../thread/events.js';
import { assertNever } from '../util/assert-never.js';
import type { PermissionModeName } from '../permissions/modes.js';
import type { FrameOut } from './frame-out.js';
import { fileWarningFrame } from './config-warnings.js';
import { resultFrame } from './result-frame.js';
import { taskFrame } from './task-frames.js';
import { transcriptFrame } from './transcript-frames.js';

export type SessionStateMode = 'none' | 'host_only' | 'visible';

export interface InitInfo {
  cwd: string;
  model: string;
  permissionMode: PermissionModeName;
  tools: string[];
  mcpServers: Array<{ name: string; status: string; source?: string }>;
  apiKeySource: string;
  additionalDirectories: string[];
  /** The active output style's name. */
  outputStyle?: string;
  /** Slash command names (custom, skills, built-ins), agent names, skill names and plugins (src/commands). */
  slashCommands?: string[];
  agents?: string[];
  skills?: string[];
  plugins?: Array<{ name: string; path: string }>;
}

export interface ProjectorOptions {
  sessionId: string;
  includePartialMessages: boolean;
  includeHookEvents: boolean;
  /** Emit system/agentd_usage after every model call (--usage-frames; off by default: SDK apps log unknown subtypes). */
  usageFrames: boolean;
  sessionState: SessionStateMode;
  agentdVersion: string;
  initInfo: () => InitInfo;
  newUuid: () => string;
  now: () => number;
}

export const CAPABILITIES = ['interrupt_receipt_v1', 'interrupt_cancel_queued_v1'];

const ASSISTANT_ERRORS: ReadonlySet<string> = new Set(ASSISTANT_MESSAGE_ERRORS);

export class Projector {
  private readonly sidJson: string;
  /** The last api_message_id and its JSON: one message streams many events. */
  private msgId = { id: '', json: '""' };
  /** The token counts the API reported for the session's last model call (for `get_context_usage`). */
  lastCallUsage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number } | undefined;

  constructor(
    private readonly out: FrameOut,
    private readonly o: ProjectorOptions,
  ) {
    this.sidJson = JSON.stringify(o.sessionId);
  }

  private messageIdJson(id: string): string {
    if (id !== this.msgId.id) this.msgId = { id, json: JSON.stringify(id) };
    return this.msgId.json;
  }

  emit(ev: SessionEvent): Promise<void> | undefined {
    const sid = this.o.sessionId;
    switch (ev.type) {
      case 'turn_started':
        return this.out.write(this.init());
      case 'state':
        if (this.o.sessionState === 'none') return undefined;
        return this.out.write({
          type: 'system',
          subtype: 'session_state_changed',
          state: ev.state,
          ...(this.o.sessionState === 'host_only' ? { sdk_host_only: true as const } : {}),
          uuid: this.o.newUuid(),
          session_id: sid,
        });
      case 'user_replay':
        return this.out.write({
          type: 'user',
          message: { role: 'user', content: ev.content as UserFrame['message']['content'] },
          parent_tool_use_id: null,
          uuid: ev.uuid,
          session_id: sid,
          timestamp: this.ts(),
          isReplay: true,
          ...(ev.isSynthetic ? { isSynthetic: true } : {}),
        });
      case 'model_request':
        if (!this.o.includePartialMessages) return undefined;
        return this.out.write({ type: 'system', subtype: 'status', status: 'requesting', uuid: this.o.newUuid(), session_id: sid });
      case 'stream': {
        if (!this.o.includePartialMessages) return undefined;
        const raw = (ev.event as WithRaw<typeof ev.event>)[RAW_JSON];
        if (raw !== undefined && this.out.writeLine) {
          // Hot path: splice the event's JSON as received; the key order matches the object path below.
          return this.out.writeLine(
            `{"type":"stream_event","event":${raw},"parent_tool_use_id":${ev.parentToolUseId === undefined ? 'null' : JSON.stringify(ev.parentToolUseId)},"uuid":"${this.o.newUuid()}","session_id":${this.sidJson},"api_message_id":${this.messageIdJson(ev.messageId)}${ev.ttftMs !== undefined ? `,"ttft_ms":${ev.ttftMs}` : ''}}`,
            'stream_event',
          );
        }
        const f: StreamEventFrame = {
          type: 'stream_event',
          event: ev.event,
          parent_tool_use_id: ev.parentToolUseId ?? null,
          uuid: this.o.newUuid(),
          session_id: sid,
          api_message_id: ev.messageId,
        };
        if (ev.ttftMs !== undefined) f.ttft_ms = ev.ttftMs;
        return this.out.write(f);
      }
      case 'assistant_block': {
        const f: AssistantFrame = {
          type: 'assistant',
          message: {
            id: ev.meta.id,
            type: 'message',
            role: 'assistant',
            model: ev.meta.model,
            content: [asWireBlock(ev.block)],
            stop_reason: null,
            stop_sequence: null,
            usage: ev.meta.usage as AssistantFrame['message']['usage'],
          },
          parent_tool_use_id: ev.parentToolUseId ?? null,
          uuid: ev.uuid,
          session_id: sid,
          timestamp: this.ts(),
        };
        if (ev.meta.requestId) f.request_id = ev.meta.requestId;
        if (ev.aborted) f.aborted = true;
        if (ev.error && ASSISTANT_ERRORS.has(ev.error)) f.error = ev.error as AssistantMessageError;
        if (ev.apiError) {
          // Claude Code's synthetic API error message: a stop_sequence stop with an empty sequence, and the API's status and type.
          f.message.stop_reason = 'stop_sequence';
          f.message.stop_sequence = '';
          f.is_api_error_message = true;
          // Without an HTTP answer (no credential, a refused connection) Claude Code leaves both out.
          if (ev.apiError.status !== null || ev.apiError.type !== undefined) {
            f.api_error_status = ev.apiError.status;
            f.api_error_type = ev.apiError.type ?? null;
          }
        }
        if (ev.supersedes?.length) f.supersedes = ev.supersedes;
        return this.out.write(f);
      }
      case 'tool_result': {
        const f: UserFrame = {
          type: 'user',
          message: { role: 'user', content: [asWireBlock(ev.block)] },
          parent_tool_use_id: ev.parentToolUseId ?? null,
          uuid: ev.uuid,
          session_id: sid,
          timestamp: this.ts(),
          tool_use_result: ev.data,
        };
        if (ev.decision || ev.nonExecutionKind) {
          f.tool_result_meta = [
            {
              id: ev.toolUseId,
              ...(ev.decision
                ? {
                    permission_decision: {
                      decision: ev.decision.decision,
                      source: ev.decision.source,
                      ...(ev.decision.reasonType ? { reason_type: ev.decision.reasonType } : {}),
                      ...(ev.decision.decidedBy ? { decided_by: ev.decision.decidedBy } : {}),
                    },
                  }
                : {}),
              ...(ev.nonExecutionKind ? { non_execution_kind: ev.nonExecutionKind } : {}),
            },
          ];
        }
        return this.out.write(f);
      }
      case 'user_text':
        return this.out.write({
          type: 'user',
          message: { role: 'user', content: [{ type: 'text', text: ev.text }] },
          parent_tool_use_id: ev.parentToolUseId ?? null,
          uuid: ev.uuid,
          session_id: sid,
          timestamp: this.ts(),
        });
      case 'tool_progress':
        return this.out.write({
          type: 'tool_progress',
          tool_use_id: ev.toolUseId,
          tool_name: ev.toolName,
          parent_tool_use_id: ev.parentToolUseId ?? null,
          elapsed_time_seconds: ev.elapsedSeconds,
          ...(ev.progress.kind === 'heartbeat' ? { heartbeat: true } : {}),
          uuid: this.o.newUuid(),
          session_id: sid,
          agentd_progress: {
            kind: ev.progress.kind,
            ...(ev.progress.output !== undefined ? { output: ev.progress.output } : {}),
            ...(ev.progress.totalBytes !== undefined ? { total_bytes: ev.progress.totalBytes } : {}),
            ...(ev.progress.droppedBytes !== undefined ? { dropped_bytes: ev.progress.droppedBytes } : {}),
            ...(ev.progress.progress !== undefined ? { progress: ev.progress.progress } : {}),
            ...(ev.progress.total !== undefined ? { total: ev.progress.total } : {}),
          },
        });
      case 'api_retry':
        return this.out.write({
          type: 'system',
          subtype: 'api_retry',
          attempt: ev.attempt,
          max_retries: ev.maxRetries,
          retry_delay_ms: ev.delayMs,
          error_status: ev.status,
          error: (ASSISTANT_ERRORS.has(ev.error) ? ev.error : 'unknown') as AssistantMessageError,
          uuid: this.o.newUuid(),
          session_id: sid,
        });
      case 'permission_mode_changed':
        return this.out.write({ type: 'system', subtype: 'status', status: null, permissionMode: ev.mode, uuid: this.o.newUuid(), session_id: sid });
      case 'permission_denied':
        return this.out.write({
          type: 'system',
          subtype: 'permission_denied',
          tool_name: ev.toolName,
          tool_use_id: ev.toolUseId,
          message: ev.message,
          ...(ev.reasonType ? { decision_reason_type: ev.reasonType } : {}),
          ...(ev.reason ? { decision_reason: ev.reason } : {}),
          uuid: this.o.newUuid(),
          session_id: sid,
        });
      case 'turn_result':
        return this.out.write(this.result(ev.result));
      case 'usage': {
        const { cost_usd: _cost, ...tokens } = ev.call;
        this.lastCallUsage = tokens;
        if (!this.o.usageFrames) return undefined;
        return this.out.write({
          type: 'system',
          subtype: 'agentd_usage',
          model: ev.model,
          call: ev.call,
          turn_cost_usd: ev.turnCostUsd,
          total_cost_usd: ev.totalCostUsd,
          uuid: this.o.newUuid(),
          session_id: sid,
        });
      }
      case 'hook_started':
        if (!this.o.includeHookEvents) return undefined;
        return this.out.write({ type: 'system', subtype: 'hook_started', hook_id: ev.hookId, hook_name: ev.hookName, hook_event: ev.hookEvent, uuid: this.o.newUuid(), session_id: sid });
      case 'hook_response':
        if (!this.o.includeHookEvents) return undefined;
        return this.out.write({
          type: 'system',
          subtype: 'hook_response',
          hook_id: ev.hookId,
          hook_name: ev.hookName,
          hook_event: ev.hookEvent,
          output: ev.output,
          stdout: ev.stdout,
          stderr: ev.stderr,
          ...(ev.exitCode !== undefined ? { exit_code: ev.exitCode } : {}),
          outcome: ev.outcome,
          uuid: this.o.newUuid(),
          session_id: sid,
        });
      case 'local_command_output':
        // Claude Code's frame for a locally answered command: a synthetic assistant message, no model call.
        return this.out.write({
          type: 'assistant',
          message: {
            id: ev.uuid,
            type: 'message',
            role: 'assistant',
            model: '<synthetic>',
            content: [{ type: 'text', text: ev.text }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
          },
          parent_tool_use_id: null,
          uuid: ev.uuid,
          session_id: sid,
          timestamp: this.ts(),
        });
      case 'conversation_reset':
        return this.out.write({
          type: 'conversation_reset',
          new_conversation_id: ev.newConversationId,
          trigger: 'clear',
          user_message_uuid: ev.userMessageUuid,
          timestamp: this.ts(),
          uuid: ev.newConversationId,
          session_id: sid,
        });
      case 'commands_changed':
        return this.out.write({ type: 'system', subtype: 'commands_changed', commands: ev.commands, uuid: this.o.newUuid(), session_id: sid });
      case 'file_warning':
        return this.out.write(fileWarningFrame(ev, { uuid: this.o.newUuid(), session_id: sid }));
      case 'transcript_relinked':
      case 'transcript_writes':
      case 'writes_lost':
        return this.out.write(transcriptFrame(ev, { uuid: this.o.newUuid(), session_id: sid }));
      case 'compact_status':
        return this.out.write(
          ev.status === 'compacting'
            ? { type: 'system', subtype: 'status', status: 'compacting', uuid: this.o.newUuid(), session_id: sid }
            : { type: 'system', subtype: 'status', status: null, compact_result: ev.result, ...(ev.error !== undefined ? { compact_error: ev.error } : {}), uuid: this.o.newUuid(), session_id: sid },
        );
      case 'compact_boundary':
        return this.out.write({
          type: 'system',
          subtype: 'compact_boundary',
          compact_metadata: { trigger: ev.trigger, pre_tokens: ev.preTokens, post_tokens: ev.postTokens, cumulative_dropped_tokens: ev.droppedTokens, duration_ms: ev.durationMs },
          ...(ev.logicalParentUuid !== undefined ? { logical_parent_uuid: ev.logicalParentUuid } : {}),
          uuid: ev.uuid,
          session_id: sid,
        });
      case 'compact_summary':
        // Claude Code sends the summary the thread continues from as a synthetic user message.
        return this.out.write({ type: 'user', message: { role: 'user', content: ev.text }, parent_tool_use_id: null, uuid: ev.uuid, session_id: sid, timestamp: this.ts(), isSynthetic: true });
      case 'task_started': case 'task_progress': case 'task_updated': case 'task_notification': case 'background_tasks_changed':
        return this.out.write(taskFrame(ev, { uuid: this.o.newUuid(), session_id: sid }));
      default:
        // A new SessionEvent variant must get a case here (test/types/projector-exhaustive.ts proves tsc says so).
        return assertNever(ev, 'session event');
    }
  }

  init(): SystemInitFrame {
    const i = this.o.initInfo();
    return {
      type: 'system',
      subtype: 'init',
      cwd: i.cwd,
      tools: i.tools,
      mcp_servers: i.mcpServers,
      model: i.model,
      permissionMode: i.permissionMode,
      slash_commands: i.slashCommands ?? [],
      apiKeySource: i.apiKeySource,
      claude_code_version: PROTOCOL_LEVEL,
      output_style: i.outputStyle ?? 'default',
      agents: i.agents ?? [],
      skills: i.skills ?? [],
      plugins: i.plugins ?? [],
      capabilities: CAPABILITIES,
      ...(i.additionalDirectories.length ? { additional_directories: i.additionalDirectories } : {}),
      agentd_version: this.o.agentdVersion,
      uuid: this.o.newUuid(),
      session_id: this.o.sessionId,
    };
  }

  result(r: TurnResult): ResultFrame {
    return resultFrame(r, { uuid: this.o.newUuid(), session_id: this.o.sessionId });
  }

  /** A system/protocol_error frame for input that had no request id to answer. */
  protocolError(code: ErrorCode, message: string, lineNumber: number, extra: { lineBytes?: number; requestId?: string } = {}): Promise<void> | undefined {
    return this.out.write({
      type: 'system',
      subtype: 'protocol_error',
      error_code: code,
      message,
      line_number: lineNumber,
      ...(extra.lineBytes !== undefined ? { line_bytes: extra.lineBytes } : {}),
      ...(extra.requestId !== undefined ? { request_id: extra.requestId } : {}),
      uuid: this.o.newUuid(),
      session_id: this.o.sessionId,
    });
  }

  /** The system/internal_error frame written before the daemon exits with code 70 (cli/fatal.ts). */
  internalError(message: string): Promise<void> | undefined {
    return this.out.write({ type: 'system', subtype: 'internal_error', error_code: 'internal', message, exit_code: 70, uuid: this.o.newUuid(), session_id: this.o.sessionId });
  }

  private ts(): string {
    return new Date(this.o.now()).toISOString();
  }
}

type WireBlock = { type: string; [k: string]: unknown };
/** Internal blocks are typed interfaces; on the wire they are open objects. Same values, wider type. */
function asWireBlock(b: { type: string }): WireBlock {
  return b;
}

export type { InboundControlResponse };
