// Golden comparisons with the real Claude Code 2.1.330 captures in ../shared/reference/transcripts: the same inbound
// frames are replayed into the built daemon, with a scenario that answers as the capture's mock did, and the
// sequence of outbound frame kinds is compared (values such as ids, timings and Claude Code's extra fields are not).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { baseEnv, startDaemon, tempDir } from '../support/daemon.js';
import { sharedPath } from '../support/shared.js';

// Missing ../shared fails this file with a message saying so (it never skips).
const DIR = sharedPath('reference', 'transcripts');

interface Captured {
  inbound: Array<Record<string, unknown>>;
  outboundKinds: string[];
  argv: string[];
}

function kind(f: Record<string, unknown>): string {
  if (f['type'] === 'stream_event') return `se:${String((f['event'] as { type: string }).type)}`;
  if (f['type'] === 'control_request') return `cr:${String((f['request'] as { subtype: string }).subtype)}`;
  return `${String(f['type'])}${f['subtype'] ? `/${String(f['subtype'])}` : ''}`;
}

function load(name: string): Captured {
  const lines = readFileSync(join(DIR, name, 'frames.ndjson'), 'utf8').trim().split('\n');
  const inbound: Array<Record<string, unknown>> = [];
  const outboundKinds: string[] = [];
  for (const l of lines) {
    const o = JSON.parse(l) as { dir: string; frame?: Record<string, unknown> };
    if (!o.frame) continue;
    if (o.dir === 'in' && o.frame['type'] !== 'control_response') inbound.push(o.frame);
    // thinking_tokens is an internal Claude Code frame agentd does not emit (estimates of redacted thinking).
    if (o.dir === 'out' && !(o.frame['type'] === 'system' && o.frame['subtype'] === 'thinking_tokens')) outboundKinds.push(kind(o.frame));
  }
  const argv = (JSON.parse(readFileSync(join(DIR, name, 'argv.json'), 'utf8')) as { argv: string[] }).argv;
  return { inbound, outboundKinds, argv };
}

async function replay(name: string, scenario: Scenario): Promise<string[]> {
  const cap = load(name);
  const file = join(tempDir('agentd-golden-'), 'scenario.json');
  writeFileSync(file, JSON.stringify(scenario));
  const d = startDaemon({
    args: [...cap.argv.filter((a) => a !== '--permission-prompt-tool=stdio'), '--scenario', file],
    env: baseEnv({ CLAUDE_CODE_SDK_READS_SESSION_STATE: '1', AGENTD_RETRY_BASE_DELAY_MS: '5' }),
  });
  // Answer the hook callbacks as the SDK did in the capture ({continue: true}).
  d.tap.onFrame((f) => {
    if (f['type'] === 'control_request') d.send({ type: 'control_response', response: { subtype: 'success', request_id: f['request_id'], response: { continue: true } } });
  });
  for (const f of cap.inbound) d.send(f);
  await d.waitFor((f) => f['type'] === 'system' && f['subtype'] === 'session_state_changed' && f['state'] === 'idle');
  d.endInput();
  await d.exited;
  return d.tap.frames.map(kind);
}

describe('frame sequences match Claude Code 2.1.330 captures', () => {
  it('text: a plain answer with partial messages', async () => {
    const ours = await replay('text', {
      rules: [{ reply: { content: [{ type: 'text', text: 'Hello, harness! This is the mock model answering with plain text.' }], chunkSize: 16 } }],
    });
    expect(ours).toEqual(load('text').outboundKinds);
  });

  it('overloaded-retry: 529 twice, then success', async () => {
    const ours = await replay('overloaded-retry', {
      rules: [
        {
          replies: [
            { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
            { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
            { content: [{ type: 'text', text: 'Succeeded after two overloaded errors.' }] },
          ],
        },
      ],
    });
    expect(ours).toEqual(load('overloaded-retry').outboundKinds);
  });

  it('invalid-tools: an unknown tool and an invalid input, then an answer (results at message end: see README)', async () => {
    const ours = await replay('invalid-tools', {
      rules: [
        {
          when: { hasToolResults: false },
          reply: {
            content: [
              { type: 'tool_use', id: 'toolu_bad_name', name: 'NoSuchTool', input: { x: 1 } },
              { type: 'tool_use', id: 'toolu_bad_input', name: 'Read', input: { limit: 5 } },
            ],
          },
        },
        { reply: { content: [{ type: 'text', text: 'Both calls failed as expected.' }] } },
      ],
    });
    const cc = load('invalid-tools').outboundKinds;
    // Claude Code reports each immediate error right after its tool_use block; agentd reports results once the
    // message that asked for them has ended (so a stream that breaks and is retried never leaks a result).
    // Same frames, one reordering:
    expect(cc).toEqual(['control_response', 'system/session_state_changed', 'system/init', 'assistant', 'user', 'assistant', 'user', 'assistant', 'result/success', 'system/session_state_changed']);
    expect(ours).toEqual(['control_response', 'system/session_state_changed', 'system/init', 'assistant', 'assistant', 'user', 'user', 'assistant', 'result/success', 'system/session_state_changed']);
  });
});
