// Model names through the official TypeScript SDK, against a loopback Messages server (agentd's real Anthropic
// client): the ids sent are the ones Claude Code 2.1.330 sends (measured: test/measure/model-aliases.measure.ts),
// system/init and modelUsage show the resolved name, cost is that model's; availableModels from a user file, a
// project file and the SDK's managedSettings restricts supportedModels(), set_model and --model as Claude Code does.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Options, type SDKMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { AGENTD, baseEnv, tempDir } from '../support/daemon.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';
import { collect, promptChannel } from '../support/sdk-run.js';

// 150k tokens in (over Haiku 5.5's 100k long-prompt mark, far under every window: no compaction), 100k out.
const OK: Scenario = { rules: [{ reply: { content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 150_000, output_tokens: 100_000 } } }] };
const usd = (n: number): number => Math.round(n * 1e6) / 1e6;

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface World {
  env: Record<string, string>;
  cwd: string;
}

/** A workspace with the given user and project settings, the model on the loopback server. */
async function world(files: { user?: object; project?: object } = {}, env: Record<string, string> = {}): Promise<World> {
  server = await startLoopbackServer(OK);
  const e = baseEnv({ ANTHROPIC_API_KEY: 'sk-ant-loopback', ANTHROPIC_BASE_URL: server.url, AGENTD_RETRY_BASE_DELAY_MS: '10', ...env });
  const cwd = tempDir('agentd-models-');
  if (files.user) {
    mkdirSync(e['CLAUDE_CONFIG_DIR'] as string, { recursive: true });
    writeFileSync(join(e['CLAUDE_CONFIG_DIR'] as string, 'settings.json'), JSON.stringify(files.user));
  }
  if (files.project) {
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    writeFileSync(join(cwd, '.claude/settings.json'), JSON.stringify(files.project));
  }
  return { env: e, cwd };
}

/** Each request's model, and whether it carried the context-1m beta (the rest of the beta list is the request builder's). */
const sent = (): Array<{ model: string | undefined; oneM: boolean }> => (server?.requests ?? []).map((r) => ({ model: r.body.model, oneM: String(r.headers['anthropic-beta'] ?? '').split(',').includes('context-1m-2025-08-07') }));
const initModels = (msgs: SDKMessage[]): string[] => msgs.flatMap((m) => (m.type === 'system' && m.subtype === 'init' ? [m.model] : []));
const results = (msgs: SDKMessage[]) => msgs.filter((m) => m.type === 'result');

/** One turn per prompt; `between[i]` runs after turn i's result (a set_model). */
async function turns(w: World, options: Partial<Options>, prompts: string[], between: Array<(q: ReturnType<typeof query>) => Promise<unknown>> = []) {
  const input = promptChannel();
  const q = query({ prompt: input, options: { pathToClaudeCodeExecutable: AGENTD, cwd: w.cwd, env: w.env, ...options } });
  const supported = await q.supportedModels();
  const outcomes: unknown[] = [];
  input.push(prompts[0] as string);
  let done = 0;
  const msgs = await collect(q, async (m) => {
    if (m.type !== 'result') return;
    done++;
    const step = between[done - 1];
    if (step) outcomes.push(await step(q).then(() => 'ok', (e: Error) => e.message));
    if (done < prompts.length) input.push(prompts[done] as string);
    else input.close();
  });
  return { msgs, supported: supported.map((m) => `${m.value} → ${m.resolvedModel}`), outcomes };
}

describe('model names on the wire (Claude Code 2.1.330\'s ids)', () => {
  it('--model sonnet sends claude-sonnet-5-5; set_model("opus"), ("haiku"), ("claude-sonnet-4-5[1m]") and ("default") send the measured ids; cost and windows are the resolved models\'', async () => {
    const w = await world();
    const { msgs, outcomes } = await turns(w, { model: 'sonnet' }, ['one', 'two', 'three', 'four', 'five'], [(q) => q.setModel('opus'), (q) => q.setModel('haiku'), (q) => q.setModel('claude-sonnet-4-5[1m]'), (q) => q.setModel('default')]);
    expect({ outcomes, sent: sent(), init: initModels(msgs) }).toEqual({
      outcomes: ['ok', 'ok', 'ok', 'ok'],
      sent: [
        { model: 'claude-sonnet-5-5', oneM: false },
        { model: 'claude-opus-5-5', oneM: false },
        { model: 'claude-haiku-5-5', oneM: false },
        { model: 'claude-sonnet-4-5', oneM: true },
        { model: 'claude-opus-5-5', oneM: false },
      ],
      // system/init at every turn, as Claude Code sends it.
      init: ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-haiku-5-5', 'claude-sonnet-4-5[1m]', 'claude-opus-5-5'],
    });
    const last = results(msgs).at(-1) as { modelUsage: Record<string, { costUSD: number; contextWindow: number; maxOutputTokens: number; costBasis?: string }> };
    // Per call, $/Mtok: Sonnet 5.5 2/10, Opus 5.5 4/20 (twice), Haiku 5.5 over 100k 0.50/2.50, Sonnet 4.5 [1m] 3/15.
    expect(Object.fromEntries(Object.entries(last.modelUsage).map(([k, v]) => [k, [usd(v.costUSD), v.contextWindow, v.maxOutputTokens, v.costBasis]]))).toEqual({
      'claude-sonnet-5-5': [1.3, 1_000_000, 128_000, 'list'],
      'claude-opus-5-5': [5.2, 1_000_000, 128_000, 'list'],
      'claude-haiku-5-5': [0.325, 1_000_000, 128_000, 'list'],
      'claude-sonnet-4-5[1m]': [1.95, 1_000_000, 32_000, 'list'],
    });
  });

  it('ANTHROPIC_DEFAULT_OPUS_MODEL: the default is the override with [1m]; an unknown model is passed through and priced as Claude Code prices it', async () => {
    const w = await world({}, { ANTHROPIC_DEFAULT_OPUS_MODEL: 'my-opus' });
    const { msgs, supported } = await turns(w, {}, ['one', 'two'], [(q) => q.setModel('my-gateway-model')]);
    expect({ supported, sent: sent(), init: initModels(msgs) }).toEqual({
      supported: ['default → my-opus[1m]', 'opus → my-opus', 'fable → claude-fable-5-2', 'sonnet → claude-sonnet-5-5', 'haiku → claude-haiku-5-5'],
      sent: [
        { model: 'my-opus', oneM: true },
        { model: 'my-gateway-model', oneM: false },
      ],
      init: ['my-opus[1m]', 'my-gateway-model'],
    });
    const usage = (results(msgs).at(-1) as { modelUsage: Record<string, { costUSD: number; costBasis?: string }> }).modelUsage;
    expect(Object.fromEntries(Object.entries(usage).map(([k, v]) => [k, [usd(v.costUSD), v.costBasis]]))).toEqual({ 'my-opus[1m]': [2.6, 'unknown'], 'my-gateway-model': [2.6, 'unknown'] });
  });
});

describe('-p goes through the same resolution', () => {
  it('agentd -p --model haiku --output-format json: claude-haiku-5-5 sent, and named in modelUsage', async () => {
    const w = await world({ user: { availableModels: ['haiku'] } });
    const child = spawn(process.execPath, [AGENTD, '-p', 'hi', '--model', 'haiku', '--output-format', 'json'], { env: w.env, cwd: w.cwd });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const code = await new Promise((r) => child.on('exit', r));
    const result = JSON.parse(out) as { result: string; modelUsage: Record<string, unknown> };
    expect({ code, sent: sent().map((s) => s.model), result: result.result, models: Object.keys(result.modelUsage) }).toEqual({ code: 0, sent: ['claude-haiku-5-5'], result: 'ok', models: ['claude-haiku-5-5'] });
  });
});

describe('opusplan and the fallback model', () => {
  it('opusplan: init shows Sonnet, requests go to Opus in plan mode and to Sonnet after leaving it; --fallback-model haiku after three overloads', async () => {
    const w = await world();
    const { msgs, outcomes } = await turns(w, { model: 'opusplan', permissionMode: 'plan' }, ['one', 'two'], [(q) => q.setPermissionMode('default')]);
    expect({ outcomes, sent: sent().map((s) => s.model), init: initModels(msgs) }).toEqual({ outcomes: ['ok'], sent: ['claude-opus-5-5', 'claude-sonnet-5-5'], init: ['claude-sonnet-5-5', 'claude-sonnet-5-5'] });
    await server?.close();
    server = await startLoopbackServer({ rules: [{ when: { model: 'claude-opus-5-5' }, reply: { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } } }, { reply: { content: [{ type: 'text', text: 'from the fallback' }] } }] });
    const env = baseEnv({ ANTHROPIC_API_KEY: 'sk-ant-loopback', ANTHROPIC_BASE_URL: server.url, AGENTD_RETRY_BASE_DELAY_MS: '10' });
    const r = await collect(query({ prompt: 'hi', options: { pathToClaudeCodeExecutable: AGENTD, cwd: tempDir(), env, model: 'opus', fallbackModel: 'haiku' } }));
    expect({ sent: sent().map((s) => s.model), result: (results(r).at(-1) as { result?: string }).result }).toEqual({
      sent: ['claude-opus-5-5', 'claude-opus-5-5', 'claude-opus-5-5', 'claude-haiku-5-5'],
      result: 'from the fallback',
    });
  });
});

describe('availableModels', () => {
  it('from the user file: only the listed models offered; set_model of another refused with Claude Code\'s message; --model of another gives the default', async () => {
    const w = await world({ user: { availableModels: ['sonnet', 'haiku'] } });
    const { msgs, supported, outcomes } = await turns(w, { model: 'fable' }, ['one', 'two', 'three'], [(q) => q.setModel('claude-fable-5-2'), (q) => q.setModel('haiku')]);
    expect({ supported, outcomes, sent: sent().map((s) => s.model), init: initModels(msgs) }).toEqual({
      supported: ['default → claude-opus-5-5', 'sonnet → claude-sonnet-5-5', 'haiku → claude-haiku-5-5'],
      outcomes: ['Model "claude-fable-5-2" is restricted by your organization\'s settings. Using claude-opus-5-5 instead.', 'ok'],
      sent: ['claude-opus-5-5', 'claude-opus-5-5', 'claude-haiku-5-5'],
      init: ['claude-opus-5-5', 'claude-opus-5-5', 'claude-haiku-5-5'],
    });
  });

  it('from the SDK\'s managedSettings, with enforceAvailableModels: the default is the first listed model; a wider user list does not widen it', async () => {
    const w = await world({ user: { availableModels: ['sonnet', 'opus'] } });
    const { msgs, supported, outcomes } = await turns(w, { managedSettings: { availableModels: ['sonnet'], enforceAvailableModels: true } }, ['one', 'two'], [(q) => q.setModel('opus')]);
    expect({ supported, outcomes, sent: sent().map((s) => s.model), init: initModels(msgs) }).toEqual({
      supported: ['default → claude-sonnet-5-5', 'sonnet → claude-sonnet-5-5'],
      outcomes: ['Model "opus" is restricted by your organization\'s settings. Using claude-sonnet-5-5 instead.'],
      sent: ['claude-sonnet-5-5', 'claude-sonnet-5-5'],
      init: ['claude-sonnet-5-5', 'claude-sonnet-5-5'],
    });
  });

  it('deniedModels from the SDK\'s managedSettings: the default and `opus` step down to claude-opus-5; the denied id is refused', async () => {
    const w = await world();
    const { msgs, supported, outcomes } = await turns(w, { managedSettings: { deniedModels: ['claude-opus-5-5'] } }, ['one', 'two'], [(q) => q.setModel('claude-opus-5-5')]);
    expect({ supported, outcomes, sent: sent().map((s) => s.model), init: initModels(msgs) }).toEqual({
      supported: ['default → claude-opus-5', 'claude-opus-5 → claude-opus-5', 'fable → claude-fable-5-2', 'sonnet → claude-sonnet-5-5', 'haiku → claude-haiku-5-5'],
      outcomes: ['Model "claude-opus-5-5" is restricted by your organization\'s settings. Using claude-opus-5 instead.'],
      sent: ['claude-opus-5', 'claude-opus-5'],
      init: ['claude-opus-5', 'claude-opus-5'],
    });
  });

  it('from a project file (Claude Code honours it there too): the session opens and is restricted; a malformed restriction fails closed with a warning', async () => {
    const w = await world({ project: { availableModels: ['haiku'] } });
    const { supported, outcomes } = await turns(w, {}, ['one'], [(q) => q.setModel('sonnet')]);
    expect({ supported, outcomes, sent: sent().map((s) => s.model) }).toEqual({
      supported: ['default → claude-opus-5-5', 'haiku → claude-haiku-5-5'],
      outcomes: ['Model "sonnet" is restricted by your organization\'s settings. Using claude-opus-5-5 instead.'],
      sent: ['claude-opus-5-5'],
    });
    await server?.close();
    const bad = await world({ project: { availableModels: 'haiku' } });
    const r = await turns(bad, { model: 'haiku' }, ['one']);
    const warning = r.msgs.find((m) => m.type === 'system' && (m as { subtype?: string }).subtype === ('agentd_warning' as never)) as Record<string, unknown> | undefined;
    expect({ supported: r.supported, sent: sent().map((s) => s.model), warning: { code: warning?.['code'], message: warning?.['message'], path: warning?.['path'] } }).toEqual({
      supported: ['default → claude-opus-5-5'],
      sent: ['claude-opus-5-5'],
      warning: { code: 'settings_key_invalid', message: 'availableModels must be an array of strings, not string; only the default model is allowed until it is fixed', path: join(bad.cwd, '.claude/settings.json') },
    });
  });
});
