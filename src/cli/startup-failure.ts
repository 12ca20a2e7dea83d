// How a start-up failure is reported (main.ts before the app runs; app.ts when the command sandbox cannot
// start). One place, so both look the same to every client.
import { newUuid } from '../util/ids.js';
import type { CliOptions, StartupError } from './options.js';

type OutputFormat = CliOptions['outputFormat'];

/**
 * A start-up failure, reported once and the same way whatever failed: for text output one human line on stderr;
 * for json and stream-json one JSON line on stdout, a zeroed error result (the SDKs surface its `errors` as the
 * error text, and a `--output-format json` caller gets the result object it always gets).
 */
export function startupFailure(stdout: NodeJS.WritableStream, format: OutputFormat, e: StartupError): void {
  if (format === 'text') {
    process.stderr.write(`agentd: ${e.message}\n`);
    return;
  }
  const line = {
        type: 'result',
        subtype: 'error_during_execution',
        is_error: true,
        duration_ms: 0,
        duration_api_ms: 0,
        num_turns: 0,
        stop_reason: null,
        total_cost_usd: 0,
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
          service_tier: 'standard',
          cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
        },
        modelUsage: {},
        permission_denials: [],
        errors: [e.message],
        startup_failure_reason: e.reason,
        agentd_error: { category: 'startup', retryable: false, status: null },
        uuid: newUuid(),
        session_id: '',
  };
  stdout.write(`${JSON.stringify(line)}\n`);
}

