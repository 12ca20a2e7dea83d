// The wire does not move under refactoring: a recorded session (stream events, hooks, a permission prompt, tools,
// a retried API error, a denial, thinking) is replayed into the built daemon and its frames are compared with a
// golden captured from the build before the agent-loop refactor, byte for byte after ids and timings are
// normalised. Regenerate deliberately with AGENTD_UPDATE_GOLDEN=1 (and say why in the commit).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STREAM_ARGS, baseEnv, initializeFrame, startDaemon, tempDir, userFrame } from '../support/daemon.js';

const GOLDEN = join(import.meta.dirname, 'wire', 'session.ndjson');
const VOLATILE_KEYS = new Set(['uuid', 'session_id', 'timestamp', 'duration_ms', 'duration_api_ms', 'ttft_ms', 'request_id', 'pid', 'elapsed_time_seconds', 'retry_delay_ms']);
const ID = /^(msg|toolu|req|srvtoolu)_[A-Za-z0-9_-]+$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const TEMP = /(agentd-run-|agentd-wire-|agentd-home-)[A-Za-z0-9]{6}/g;
const UUID_IN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

function normalise(v: unknown, cwd: string): unknown {
  if (typeof v === 'string') {
    if (ID.test(v)) return '<id>';
    return v.split(cwd).join('<cwd>').replace(TEMP, '$1XXXXXX').replace(UUID_IN, '<uuid>');
  }
  if (Array.isArray(v)) return v.map((x) => normalise(x, cwd));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = VOLATILE_KEYS.has(k) ? `<${k}>` : normalise(x, cwd);
    return out;
  }
  return v;
}

describe('wire stability', () => {
  it("a recorded session's frames equal the golden except ids and timings", async () => {
    const cwd = tempDir('agentd-wire-');
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\n');
    const scenario = join(cwd, '..', `${cwd.split('/').pop() ?? 'x'}-scenario.json`);
    writeFileSync(
      scenario,
      JSON.stringify({
        // Tool inputs hold temporary paths: one chunk each, so the normaliser sees whole paths.
        defaults: { chunkSize: 4096 },
        rules: [
          { when: { requestIndex: 0 }, reply: { content: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_r1', name: 'Read', input: { file_path: '{{cwd}}/notes.txt' } }], usage: { input_tokens: 30, output_tokens: 9 } } },
          { when: { requestIndex: 1 }, reply: { content: [{ type: 'tool_use', id: 'toolu_w1', name: 'Write', input: { file_path: '{{cwd}}/out.txt', content: 'x' } }] } },
          { when: { requestIndex: 2 }, reply: { content: [{ type: 'tool_use', id: 'toolu_b1', name: 'Bash', input: { command: 'echo hi', description: 'Say hi' } }] } },
          { when: { requestIndex: 3 }, reply: { content: [{ type: 'text', text: 'All done: the file says alpha and beta.' }], chunkSize: 7 } },
          { when: { requestIndex: 4 }, reply: { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } } },
          { when: { requestIndex: 5 }, reply: { content: [{ type: 'thinking', thinking: 'Think first.', signature: 'sig' }, { type: 'text', text: 'After a retry.' }] } },
          { when: { requestIndex: 6 }, reply: { content: [{ type: 'tool_use', id: 'toolu_w2', name: 'Write', input: { file_path: '{{cwd}}/no.txt', content: 'y' } }] } },
          { when: { requestIndex: 7 }, reply: { content: [{ type: 'text', text: 'Not written.' }] } },
        ],
      }),
    );
    const d = startDaemon({
      args: [...STREAM_ARGS, '--scenario', scenario, '--include-partial-messages', '--include-hook-events', '--permission-prompt-tool', 'stdio'],
      env: baseEnv({ CLAUDE_CODE_SDK_READS_SESSION_STATE: '1', AGENTD_RETRY_BASE_DELAY_MS: '5' }),
      cwd,
    });
    let prompts = 0;
    d.tap.onFrame((f) => {
      if (f['type'] !== 'control_request') return;
      const req = f['request'] as { subtype: string; input?: Record<string, unknown> };
      let response: Record<string, unknown> = { continue: true };
      if (req.subtype === 'can_use_tool') {
        prompts++;
        response = prompts === 1 ? { behavior: 'allow', updatedInput: req.input } : { behavior: 'deny', message: 'Not this one.' };
      }
      d.send({ type: 'control_response', response: { subtype: 'success', request_id: f['request_id'], response } });
    });
    d.send(initializeFrame('init', { hooks: { PreToolUse: [{ matcher: 'Read', hookCallbackIds: ['hook_0'] }] } }));
    await d.waitFor((f) => f['type'] === 'control_response');
    let results = 0;
    for (const text of ['read the notes', 'again', 'write no.txt']) {
      d.send(userFrame(text));
      const want = ++results;
      await d.waitFor(() => d.tap.frames.filter((f) => f['type'] === 'result').length === want, 20_000);
      await d.waitFor(() => d.tap.frames.filter((f) => f['type'] === 'system' && f['subtype'] === 'session_state_changed' && f['state'] === 'idle').length === want, 20_000);
    }
    d.endInput();
    expect((await d.exited).code).toBe(0);
    const frames = d.tap.frames.filter((f) => f['type'] !== 'tool_progress').map((f) => JSON.stringify(normalise(f, cwd)));
    if (process.env['AGENTD_UPDATE_GOLDEN'] === '1') writeFileSync(GOLDEN, `${frames.join('\n')}\n`);
    expect(existsSync(GOLDEN), `${GOLDEN} is missing: capture it with AGENTD_UPDATE_GOLDEN=1 from a build you trust`).toBe(true);
    expect(frames).toEqual(readFileSync(GOLDEN, 'utf8').trimEnd().split('\n'));
  }, 60_000);
});
