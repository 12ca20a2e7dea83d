// MEASUREMENT (not part of npm test): what Claude Code 2.1.330 does under the faults of issue 22's reliability
// items, driven through the TS SDK against fault-injecting loopback servers. Prints what it emitted and what each
// request carried; `CLI=agentd` runs the same against the built daemon for comparison.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { type Options, type SDKMessage, type SDKUserMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { type LoopbackOptions, startLoopbackServer } from '../support/loopback-server.js';
import { AGENTD, ROOT, tempDir } from '../support/daemon.js';
import { promptChannel } from '../support/sdk-run.js';
import type { Scenario } from '../../src/model/scripted/scenario.js';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');
const CLI = process.env['CLI'] === 'agentd' ? AGENTD : CLAUDE;
const only = (name: string): boolean => !process.env['ONLY'] || process.env['ONLY'].split(',').some((o) => name.startsWith(o));

async function setup(scenario: Scenario, lo: LoopbackOptions = {}) {
  const server = await startLoopbackServer(scenario, {}, lo);
  const cwd = tempDir('cc-rel-');
  const home = tempDir('cc-home-');
  mkdirSync(join(home, '.claude'), { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_API_KEY: 'sk-test',
    ANTHROPIC_BASE_URL: server.url,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    TMPDIR: tempDir('cc-tmp-'),
  };
  const stderr: string[] = [];
  const options = (extra: Partial<Options> = {}): Options => ({
    pathToClaudeCodeExecutable: CLI,
    cwd,
    env,
    model: 'claude-sonnet-4-5',
    stderr: (d) => stderr.push(d),
    ...extra,
  });
  return { server, cwd, home, env, options, stderr };
}

function brief(m: SDKMessage): string {
  const o = m as Record<string, unknown>;
  if (m.type === 'stream_event') return '';
  const copy: Record<string, unknown> = { ...o };
  delete copy['session_id'];
  delete copy['uuid'];
  if (m.type === 'system' && m.subtype === 'init') return 'system/init';
  return JSON.stringify(copy, (_k, v: unknown) => (typeof v === 'string' && v.length > 400 ? `${v.slice(0, 200)}…[${v.length} chars]` : v));
}

function requestSummary(body: { model: string; messages: Array<{ role: string; content: unknown }>; system?: unknown }): string {
  const msgs = body.messages.map((m) => {
    const c = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
    return `${m.role}(${c.length}): ${c.length > 300 ? `${c.slice(0, 150)}…${c.slice(-150)}` : c}`;
  });
  return `model=${body.model} n=${body.messages.length}\n      ${msgs.join('\n      ')}`;
}

/** An async-iterable prompt of whole SDK user messages (uuids, block content). */
function rawChannel() {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  return {
    pushMessage(m: SDKUserMessage) {
      queue.push(m);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<SDKUserMessage> {
      for (;;) {
        const m = queue.shift();
        if (m) {
          yield m;
          continue;
        }
        if (closed) return;
        await new Promise<void>((r) => {
          wake = r;
        });
      }
    },
  };
}

const TOO_LONG = { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 1310734 tokens > 200000 maximum' };

if (only('A'))
  it('A prompt too long, then a short turn', async () => {
    const s = await setup(
      { rules: [], fallback: { content: [{ type: 'text', text: 'short answer' }] } },
      { refuse: ({ bytes }) => (bytes > 1_000_000 ? TOO_LONG : undefined) },
    );
    const ch = promptChannel();
    const out: string[] = [];
    let results = 0;
    ch.push(`HUGE ${'x'.repeat(5 * 1024 * 1024)}`);
    const t0 = Date.now();
    try {
      for await (const m of query({ prompt: ch, options: s.options() })) {
        const b = brief(m);
        if (b) out.push(`${Date.now() - t0}ms ${b}`);
        if (m.type === 'result') {
          results++;
          if (results === 1) ch.push('hello, short one');
          else ch.close();
        }
      }
    } catch (e) {
      out.push(`threw: ${String(e)}`);
    } finally {
      await s.server.close();
    }
    console.log(`### A frames:\n  ${out.join('\n  ')}\n### A requests (${s.server.requests.length}):\n  ${s.server.requests.map((r) => `${r.outcome} ${requestSummary(r.body)}`).join('\n  ')}`);
    const dir = join(s.home, '.claude', 'projects');
    for (const d of readdirSync(dir)) for (const f of readdirSync(join(dir, d))) if (f.endsWith('.jsonl')) console.log(`### A transcript ${f}:\n${readFileSync(join(dir, d, f), 'utf8').split('\n').map((l) => (l.length > 600 ? `${l.slice(0, 300)}…${l.slice(-300)}` : l)).join('\n')}`);
  }, 120_000);

if (only('B'))
  it('B 429 with retry-after 3600', async () => {
    const s = await setup({ rules: [{ reply: { error: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit', retryAfter: 3600 } } }] });
    const out: string[] = [];
    const t0 = Date.now();
    try {
      for await (const m of query({ prompt: 'go', options: s.options() })) {
        const b = brief(m);
        if (b) out.push(`${Date.now() - t0}ms ${b}`);
      }
    } catch (e) {
      out.push(`threw: ${String(e)}`);
    } finally {
      await s.server.close();
    }
    console.log(`### B (${Date.now() - t0} ms) frames:\n  ${out.join('\n  ')}\n### B requests: ${s.server.requests.length} ${JSON.stringify(s.server.requests.map((r) => r.headers['x-stainless-retry-count']))}`);
    console.log(`### B stderr: ${s.stderr.join('').slice(-2000)}`);
  }, 300_000);

if (only('B2'))
  it('B2 429 with retry-after 30 (below a bound?)', async () => {
    const s = await setup({ rules: [{ reply: { error: { status: 429, type: 'rate_limit_error', message: 'rate limited', retryAfter: Number(process.env['RA'] ?? 30) } } }] });
    const out: string[] = [];
    const t0 = Date.now();
    const q = query({ prompt: 'go', options: s.options() });
    const stop = setTimeout(() => void q.interrupt().catch(() => undefined), 40_000);
    try {
      for await (const m of q) {
        const b = brief(m);
        if (b) out.push(`${Date.now() - t0}ms ${b}`);
        if (m.type === 'system' && m.subtype === 'api_retry') void q.interrupt().catch(() => undefined);
      }
    } catch (e) {
      out.push(`threw: ${String(e)}`);
    } finally {
      clearTimeout(stop);
      await s.server.close();
    }
    console.log(`### B2 (${Date.now() - t0} ms) frames:\n  ${out.join('\n  ')}\n### B2 requests: ${s.server.requests.length}`);
  }, 300_000);

if (only('C'))
  it('C user messages queued while a turn runs', async () => {
    const n = Number(process.env['N'] ?? 5);
    const s = await setup({
      rules: [
        { when: { requestIndex: 0 }, reply: { content: [{ type: 'text', text: 'answer one' }], delays: { firstTokenMs: 1500 } } },
      ],
      fallback: { content: [{ type: 'text', text: 'answer later' }] },
    });
    const ch = rawChannel();
    const out: string[] = [];
    const uuidOf = (i: number): string => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const pushRaw = (i: number): void =>
      ch.pushMessage({ type: 'user', message: { role: 'user', content: process.env['BLOCKS'] ? [{ type: 'text', text: `m${i}` }] : `m${i}` }, parent_tool_use_id: null, session_id: '', uuid: uuidOf(i) } as SDKUserMessage);
    pushRaw(0);
    const t0 = Date.now();
    let pushed = false;
    let results = 0;
    try {
      const q = query({ prompt: ch, options: s.options(process.env['REPLAY'] ? { extraArgs: { 'replay-user-messages': null } } : {}) });
      for await (const m of q) {
        const b = brief(m);
        if (b && n <= 20) out.push(`${Date.now() - t0}ms ${b}`);
        if (m.type === 'system' && m.subtype === 'init' && !pushed) {
          pushed = true;
          await new Promise((r) => setTimeout(r, 300));
          for (let i = 1; i < n; i++) pushRaw(i);
        }
        if (m.type === 'user' || m.type === 'result') out.push(`   uuid=${String((m as { uuid?: string }).uuid)}`);
        if (m.type === 'result') {
          results++;
          out.push(`${Date.now() - t0}ms RESULT #${results}`);
          if (!pushed) continue;
          // Close once every message has been answered or a quiet second passed.
          setTimeout(() => ch.close(), 3000);
        }
      }
    } finally {
      await s.server.close();
    }
    console.log(`### C last message: ${JSON.stringify(s.server.requests.at(-1)?.body.messages.at(-1), null, 1)}`);
    console.log(`### C n=${n} (${Date.now() - t0} ms, ${results} results) frames:\n  ${out.join('\n  ')}\n### C requests (${s.server.requests.length}):\n  ${s.server.requests.slice(0, 6).map((r) => requestSummary(r.body)).join('\n  ')}`);
  }, 300_000);

if (only('D'))
  it('D resume over a broken parent link', async () => {
    const s = await setup({ rules: [], fallback: { content: [{ type: 'text', text: 'ok' }] } });
    let sessionId = '';
    try {
      for (const p of ['turn one', 'turn two', 'turn three']) {
        for await (const m of query({ prompt: p, options: s.options(sessionId ? { resume: sessionId } : {}) })) if (m.type === 'result') sessionId = m.session_id;
      }
      const dir = join(s.home, '.claude', 'projects');
      const proj = readdirSync(dir)[0] ?? '';
      const file = join(dir, proj, `${sessionId}.jsonl`);
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      // Break the link of the user entry of "turn three": its parent names nothing in the file.
      const idx = lines.findIndex((l) => l.includes('"turn three"') && l.includes('"type":"user"'));
      const e = JSON.parse(lines[idx] ?? '{}') as Record<string, unknown>;
      console.log(`### D broke line ${idx} parent ${String(e['parentUuid'])}`);
      e['parentUuid'] = '00000000-dead-4bad-8bad-000000000000';
      lines[idx] = JSON.stringify(e);
      writeFileSync(file, `${lines.join('\n')}\n`);
      console.log(`### D transcript:\n${lines.map((l) => { const o = JSON.parse(l) as Record<string, unknown>; return `${String(o['type'])} ${String(o['uuid'])} <- ${String(o['parentUuid'])} ${JSON.stringify((o['message'] as { content?: unknown } | undefined)?.content ?? '').slice(0, 80)}`; }).join('\n')}`);
      const before = s.server.requests.length;
      const out: string[] = [];
      for await (const m of query({ prompt: 'turn four', options: s.options({ resume: sessionId }) })) {
        const b = brief(m);
        if (b) out.push(b);
      }
      console.log(`### D frames:\n  ${out.join('\n  ')}\n### D requests after resume:\n  ${s.server.requests.slice(before).map((r) => requestSummary(r.body)).join('\n  ')}`);
      console.log(`### D stderr: ${s.stderr.join('').slice(-1500)}`);
    } finally {
      await s.server.close();
    }
  }, 300_000);

if (only('C2'))
  it('C2 user messages sent while a tool runs', async () => {
    const s = await setup({
      rules: [
        { when: { requestIndex: 0 }, reply: { content: [{ type: 'tool_use', id: 'toolu_sleep', name: 'Bash', input: { command: 'sleep 2; echo slept', description: 'sleep' } }], stopReason: 'tool_use' } },
      ],
      fallback: { content: [{ type: 'text', text: 'answer later' }] },
    });
    const ch = promptChannel();
    const out: string[] = [];
    ch.push('m0');
    const t0 = Date.now();
    let pushed = false;
    let results = 0;
    try {
      const q = query({ prompt: ch, options: s.options({ allowedTools: ['Bash'], extraArgs: { 'replay-user-messages': null } }) });
      for await (const m of q) {
        const b = brief(m);
        if (b) out.push(`${Date.now() - t0}ms ${b}`);
        if (m.type === 'assistant' && !pushed) {
          pushed = true;
          await new Promise((r) => setTimeout(r, 300));
          for (let i = 1; i < 4; i++) ch.push(`m${i}`);
        }
        if (m.type === 'result') {
          results++;
          setTimeout(() => ch.close(), 3000);
        }
      }
    } finally {
      await s.server.close();
    }
    console.log(`### C2 (${Date.now() - t0} ms, ${results} results) frames:\n  ${out.join('\n  ')}\n### C2 requests (${s.server.requests.length}):\n  ${s.server.requests.map((r) => requestSummary(r.body)).join('\n  ')}`);
    console.log(`### C2 last message: ${JSON.stringify(s.server.requests.at(-1)?.body.messages.at(-1), null, 1)}`);
  }, 300_000);
