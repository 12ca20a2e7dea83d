// The control requests of the current claude-agent-acp, against the built daemon on its scripted model: which of
// them reach the model (only a title the host explicitly asks a model for) and what they answer on the wire.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Daemon, STREAM_ARGS, baseEnv, startDaemon, tempDir } from '../support/daemon.js';

const running: Daemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) {
    d.endInput();
    await d.exited;
  }
});

function daemon(): { d: Daemon; requests: () => unknown[]; home: string } {
  const dir = tempDir('agentd-ctl-');
  const scenario = join(dir, 'scenario.json');
  const record = join(dir, 'requests.ndjson');
  writeFileSync(scenario, JSON.stringify({ rules: [{ when: { system: 'name a coding session' }, reply: { content: [{ type: 'text', text: '"Flaky upload test."' }], usage: { input_tokens: 40, output_tokens: 5 } } }] }));
  const env = baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted', AGENTD_SCENARIO: scenario, AGENTD_SCENARIO_RECORD: record });
  const d = startDaemon({ args: STREAM_ARGS, env });
  running.push(d);
  const requests = (): unknown[] => {
    try {
      return readFileSync(record, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  return { d, requests, home: env['HOME'] ?? '' };
}

async function control(d: Daemon, id: string, request: Record<string, unknown>): Promise<Record<string, unknown>> {
  d.send({ type: 'control_request', request_id: id, request });
  const f = await d.waitFor((x) => x['type'] === 'control_response' && (x['response'] as { request_id?: string }).request_id === id);
  return f['response'] as Record<string, unknown>;
}

describe('control requests of the current claude-agent-acp', () => {
  it('generate_session_title is local (no model request) unless agentd_use_model asks for the model', async () => {
    const { d, requests } = daemon();
    await control(d, 'i', { subtype: 'initialize' });
    expect(await control(d, 't1', { subtype: 'generate_session_title', description: 'Please fix the flaky upload test in CI', persist: false })).toEqual({
      subtype: 'success',
      request_id: 't1',
      response: { title: 'Fix the flaky upload test in CI' },
    });
    expect(requests()).toEqual([]);
    expect(await control(d, 't2', { subtype: 'generate_session_title', description: 'Please fix the flaky upload test in CI', agentd_use_model: true })).toEqual({
      subtype: 'success',
      request_id: 't2',
      response: { title: 'Flaky upload test' },
    });
    expect(requests()).toHaveLength(1);
  });

  it('get_context_usage answers an estimate without a model request; remote_control on is refused with not_available', async () => {
    const { d, requests } = daemon();
    await control(d, 'i', { subtype: 'initialize' });
    const usage = await control(d, 'c', { subtype: 'get_context_usage', detail: 'summary' });
    expect(usage).toMatchObject({ subtype: 'success', request_id: 'c', response: { model: 'claude-opus-5-5', maxTokens: 1_000_000, rawMaxTokens: 1_000_000, agentd_estimate: 'estimate' } });
    const categories = (usage['response'] as { categories: Array<{ id: string }> }).categories.map((c) => c.id);
    // the system prompt and the built-in tools (loaded for the answer), no messages yet; the window above the
    // automatic-compaction threshold
    expect(categories).toEqual(['system_prompt', 'system_tools', 'autocompact_buffer', 'free_space']);
    expect(await control(d, 'r', { subtype: 'remote_control', enabled: true })).toEqual({
      subtype: 'error',
      request_id: 'r',
      error: 'Remote Control is not available with agentd: it connects a Claude Code session to claude.ai, and agentd runs sessions on this machine only.',
      error_code: 'not_available',
    });
    expect(requests()).toEqual([]);
  });
});
