// A custom command's `model` frontmatter through the official TypeScript SDK on the scripted model: the
// command's turn is sent to that model (an alias resolved), the next turn to the session's model again, as
// Claude Code 2.1.330 does (test/measure/project-rules.measure.ts); the result's modelUsage names both.
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, promptChannel, query, scriptedRun } from '../support/sdk-run.js';

describe('a command file’s model', () => {
  it('runs the command’s turn on its model and the next turn on the session’s', async () => {
    const run = scriptedRun({ rules: [{ reply: { content: [{ type: 'text', text: 'ok' }] } }] });
    mkdirSync(join(run.cwd, '.claude', 'commands'), { recursive: true });
    writeFileSync(join(run.cwd, '.claude', 'commands', 'fast.md'), '---\nmodel: haiku\ndescription: quick one\n---\nSay FAST $ARGUMENTS\n');
    writeFileSync(join(run.cwd, '.claude', 'commands', 'exact.md'), '---\nmodel: claude-opus-4-6\n---\nExact body\n');
    writeFileSync(join(run.cwd, '.claude', 'commands', 'same.md'), '---\nmodel: inherit\n---\nSame body\n');
    const input = promptChannel();
    const results: SDKMessage[] = [];
    const q = query({ prompt: input, options: run.options({ settingSources: ['project'], model: 'claude-sonnet-4-5' }) });
    const done = collect(q, (m) => {
      if (m.type === 'result' && results.push(m) === 4) input.close();
    });
    for (const p of ['/fast now', 'plain after it', '/exact', '/same']) input.push(p);
    await done;
    // `haiku` is Claude Code 2.1.330's claude-haiku-5-5 (test/measure/model-aliases.measure.ts); an id as typed.
    expect(run.requests().map((r) => r.model)).toEqual(['claude-haiku-5-5', 'claude-sonnet-4-5', 'claude-opus-4-6', 'claude-sonnet-4-5']);
    expect(results.map((r) => (r.type === 'result' ? [r.subtype, Object.keys(r.modelUsage).sort()] : null))).toEqual([
      ['success', ['claude-haiku-5-5']],
      ['success', ['claude-haiku-5-5', 'claude-sonnet-4-5']],
      ['success', ['claude-haiku-5-5', 'claude-opus-4-6', 'claude-sonnet-4-5']],
      ['success', ['claude-haiku-5-5', 'claude-opus-4-6', 'claude-sonnet-4-5']],
    ]);
  }, 60_000);
});
