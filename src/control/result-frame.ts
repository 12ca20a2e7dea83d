// The `result` frame that ends a turn (protocol.md §5), from the session's TurnResult. A turn a model API error
// ended is a `success` with is_error and the error's text, as Claude Code 2.1.330 sends it (api_error_status,
// api_error_type beside it); other errors keep their error subtypes and `errors`. agentd_error rides on both.
import type { ResultFrame } from '../../protocol/src/index.js';
import type { TurnResult } from '../thread/events.js';

export function resultFrame(r: TurnResult, ids: { uuid: string; session_id: string }): ResultFrame {
  const common = {
    type: 'result' as const,
    is_error: r.isError,
    duration_ms: Math.round(r.durationMs),
    duration_api_ms: Math.round(r.durationApiMs),
    num_turns: r.numTurns,
    stop_reason: r.stopReason,
    total_cost_usd: r.totalCostUsd,
    usage: {
      input_tokens: r.usage.input_tokens,
      output_tokens: r.usage.output_tokens,
      cache_creation_input_tokens: r.usage.cache_creation_input_tokens,
      cache_read_input_tokens: r.usage.cache_read_input_tokens,
      server_tool_use: { web_search_requests: r.usage.web_search_requests, web_fetch_requests: r.usage.web_fetch_requests },
      service_tier: r.usage.service_tier,
      cache_creation: {
        ephemeral_1h_input_tokens: r.usage.ephemeral_1h_input_tokens,
        ephemeral_5m_input_tokens: r.usage.ephemeral_5m_input_tokens,
      },
    },
    modelUsage: r.modelUsage,
    permission_denials: r.permissionDenials.map((d) => ({ tool_name: d.toolName, tool_use_id: d.toolUseId, tool_input: d.input })),
    terminal_reason: r.terminalReason,
    result_index: r.resultIndex,
    queued_turn_count: r.queuedTurnCount,
    user_message_uuids: r.userMessageUuids,
    ...(r.localCommand !== undefined ? { local_command: r.localCommand } : {}),
    ...(r.error
      ? {
          agentd_error: {
            category: r.error.category,
            retryable: r.error.retryable,
            status: r.error.status,
            ...(r.error.resetsAt ? { resets_at: r.error.resetsAt } : {}),
          },
        }
      : {}),
    ...ids,
  };
  if (r.kind === 'success') {
    return {
      ...common,
      subtype: 'success',
      result: r.resultText,
      ...(r.structuredOutput !== undefined ? { structured_output: r.structuredOutput } : {}),
      ...(r.apiError ? { api_error_status: r.apiError.status, ...(r.apiError.type !== undefined ? { api_error_type: r.apiError.type } : {}) } : {}),
    };
  }
  return { ...common, subtype: r.kind, errors: r.errors.length ? r.errors : ['Unknown error'] };
}
