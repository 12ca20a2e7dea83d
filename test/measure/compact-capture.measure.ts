// MEASUREMENT (not part of npm test): what Claude Code 2.1.330 sends and emits for /compact and an automatic
// compaction, driven through the TS SDK against the loopback model. AUTO=1 for the automatic one (with
// CCENV='{"CLAUDE_CODE_AUTO_COMPACT_WINDOW":"200000"}': at 195k input tokens 2.1.330 does not compact otherwise).
//
// Automatic, at the start of the second turn (issue 21, re-measured): the summary request carries the history
// *before* the new prompt ([first message, first answer, the instruction as the last user message]; same system
// prompt, tools, max_tokens and thinking as a turn). The request after it is one user message: the context
// reminders, the summary text ("This session is being continued from a previous conversation…Summary:\n<the
// <summary> block>…"), then the new prompt verbatim as its own text block. Frames: PreCompact hook, status
// compacting, PostCompact hook, status null + compact_result success, compact_boundary (compact_metadata with
// trigger, pre_tokens, post_tokens, cumulative_dropped_tokens, duration_ms, and preserved_segment /
// preserved_messages naming the kept prompt's entries, anchored at the summary), the summary as a synthetic user
// frame, then the turn's assistant frames. The turn's result `usage` counts only its own request; the summary
// request is in modelUsage.
import { copyFileSync, mkdirSync, readdirSync, writeFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { query, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { startLoopbackServer } from '../support/loopback-server.js';
import { ROOT, tempDir } from '../support/daemon.js';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');
// Where the capture goes: CAPTURE_OUT=<path prefix> (frames.json, requests.json, stderr.txt are appended).
const OUT = process.env['CAPTURE_OUT'] ?? join(tempDir('cc-capture-'), 'cc-compact');

it('compact capture', async () => {
  const cwd = realpathSync(tempDir('cc-compact-'));
  const home = tempDir('cc-home-');
  mkdirSync(join(home, '.claude'), { recursive: true });
  const auto = process.env['AUTO'] === '1';
  const server = await startLoopbackServer({
    rules: [
      { when: { lastUserText: 'create a detailed summary' }, reply: { content: [{ type: 'text', text: '<analysis>A</analysis>\n<summary>SUMMARY-TEXT2</summary>' }] } },
      { when: { lastUserText: 'first message' }, reply: { content: [{ type: 'text', text: 'first answer' }], usage: auto ? { input_tokens: 195000, output_tokens: 10 } : { input_tokens: 100, output_tokens: 10 } } },
    ],
    fallback: { content: [{ type: 'text', text: 'fallback answer' }] },
  });
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', ...(process.env['CCENV'] ? JSON.parse(process.env['CCENV']) : {}),
  };
  const prompts = auto ? ['first message', 'second message'] : ['first message', '/compact keep the todo list', 'after compaction'];
  let release: () => void = () => {};
  async function* input(): AsyncGenerator<SDKUserMessage> {
    for (const p of prompts) {
      yield { type: 'user', message: { role: 'user', content: p }, parent_tool_use_id: null, session_id: '' };
      await new Promise<void>((r) => (release = r));
    }
  }
  const msgs: unknown[] = [];
  const stderr: string[] = [];
  const q = query({ prompt: input(), options: { pathToClaudeCodeExecutable: CLAUDE, cwd, env, model: 'claude-sonnet-4-5', stderr: (d) => stderr.push(d), hooks: {
    PreCompact: [{ hooks: [async (i) => { msgs.push({ hook: i }); return {}; }] }],
    PostCompact: [{ hooks: [async (i) => { msgs.push({ hook: i }); return {}; }] }],
  } } });
  let results = 0;
  for await (const m of q) {
    msgs.push(m);
    if (m.type === 'result') { results++; release(); if (results === prompts.length) break; }
  }
  writeFileSync(`${OUT}${auto ? '-auto' : ''}.frames.json`, JSON.stringify(msgs, null, 1));
  writeFileSync(`${OUT}${auto ? '-auto' : ''}.requests.json`, JSON.stringify(server.requests.map((r) => r.body), null, 1));
  writeFileSync(`${OUT}${auto ? '-auto' : ''}.stderr.txt`, stderr.join(''));
  // The transcript: how a compaction is recorded (what resume reads).
  const projects = join(home, '.claude', 'projects');
  for (const d of readdirSync(projects)) for (const f of readdirSync(join(projects, d))) if (f.endsWith('.jsonl')) copyFileSync(join(projects, d, f), `${OUT}${auto ? '-auto' : ''}.transcript.jsonl`);
  await server.close();
});
