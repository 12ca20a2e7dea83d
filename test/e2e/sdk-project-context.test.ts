// What a project tells the model, through the official TypeScript SDK on the scripted model (issue 12 items 1,
// 2, 5; "Done when"): memory files gated by settingSources, @imports, the environment, nested CLAUDE.md,
// warnings for bad files, the system-prompt variants, output styles, @file mentions, get_context_usage.
import { SYSTEM_PROMPT_DYNAMIC_BOUNDARY, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import type { ModelRequest } from '../../src/model/types.js';
import { collect, query, scriptedRun } from '../support/sdk-run.js';

const TEXT: Scenario = { rules: [{ reply: { content: [{ type: 'text', text: 'ok' }] } }] };

/** A block's text (a text block's text, a tool result's content as JSON). */
function blockText(b: object): string {
  const text: unknown = Reflect.get(b, 'text');
  if (typeof text === 'string') return text;
  return Reflect.get(b, 'type') === 'tool_result' ? JSON.stringify(Reflect.get(b, 'content')) : `[${String(Reflect.get(b, 'type'))}]`;
}

/** Everything the model was sent as text in a request: system blocks, then every text and tool_result. */
function sentText(r: ModelRequest | undefined): string {
  if (!r) return '';
  const parts = (r.system ?? []).map((b) => b.text);
  for (const m of r.messages) {
    if (typeof m.content === 'string') parts.push(m.content);
    else for (const b of m.content) parts.push(blockText(b));
  }
  return parts.join('\n');
}

function firstUserTexts(r: ModelRequest | undefined): string[] {
  const m = r?.messages[0];
  if (!m) return [];
  return typeof m.content === 'string' ? [m.content] : m.content.map((b) => blockText(b));
}

function project(cwd: string): void {
  mkdirSync(join(cwd, 'docs'), { recursive: true });
  writeFileSync(join(cwd, 'CLAUDE.md'), 'PROJECT-MARKER-7f3\nSee @docs/guide.md for the rules, but not `@docs/spanned.md`.\n');
  writeFileSync(join(cwd, 'docs', 'guide.md'), 'IMPORTED-MARKER-9c1\n');
  writeFileSync(join(cwd, 'docs', 'spanned.md'), 'SPANNED-MARKER\n');
}

describe('memory files through the SDK', () => {
  it("settingSources ['project']: CLAUDE.md and its @import reach the model before the prompt, with the environment", async () => {
    const run = scriptedRun(TEXT);
    project(run.cwd);
    const msgs = await collect(query({ prompt: 'hello', options: run.options({ settingSources: ['project'] }) }));
    expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
    const req = run.requests()[0];
    const first = firstUserTexts(req);
    // Environment, then the memory reminder, then the user's own text, in the first user message.
    expect(first.length).toBe(3);
    expect(first[0]).toContain(`- Working directory: ${run.cwd}`);
    expect(first[0]).toContain(`- Platform: ${process.platform}`);
    expect(first[0]).toContain('- Git repository: no');
    expect(first[1]).toContain(`Contents of ${join(run.cwd, 'CLAUDE.md')} (project instructions`);
    expect(first[1]).toContain('PROJECT-MARKER-7f3');
    expect(first[1]).toContain(`Contents of ${join(run.cwd, 'docs', 'guide.md')}`);
    expect(first[1]).toContain('IMPORTED-MARKER-9c1');
    expect(first[1]).not.toContain('SPANNED-MARKER');
    expect(first[2]).toBe('hello');
  });

  it('settingSources [] (SDK isolation): no CLAUDE.md reaches the model; the environment still does', async () => {
    const run = scriptedRun(TEXT);
    project(run.cwd);
    await collect(query({ prompt: 'hello', options: run.options({ settingSources: [] }) }));
    const text = sentText(run.requests()[0]);
    expect(text).not.toContain('PROJECT-MARKER-7f3');
    expect(text).toContain(`- Working directory: ${run.cwd}`);
  });

  it('settingSources unset loads user, project and local files; the user file is first', async () => {
    const run = scriptedRun(TEXT);
    project(run.cwd);
    writeFileSync(join(run.cwd, 'CLAUDE.local.md'), 'LOCAL-MARKER-2b\n');
    mkdirSync(join(run.home, '.claude'), { recursive: true });
    writeFileSync(join(run.home, '.claude', 'CLAUDE.md'), 'USER-MARKER-5d\n');
    await collect(query({ prompt: 'hello', options: run.options() }));
    const memory = firstUserTexts(run.requests()[0])[1] ?? '';
    const at = (s: string): number => memory.indexOf(s);
    expect([at('USER-MARKER-5d') >= 0, at('USER-MARKER-5d') < at('PROJECT-MARKER-7f3'), at('PROJECT-MARKER-7f3') < at('LOCAL-MARKER-2b')]).toEqual([true, true, true]);
  });

  it('a CLAUDE.md of a subdirectory reaches the model with the first tool result there; bad files are warned about and skipped', async () => {
    const run = scriptedRun({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'r1', name: 'Read', input: { file_path: '{{cwd}}/sub/file.txt' } }] } },
        { reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
    });
    mkdirSync(join(run.cwd, 'sub'));
    writeFileSync(join(run.cwd, 'sub', 'file.txt'), 'hello\n');
    writeFileSync(join(run.cwd, 'sub', 'CLAUDE.md'), 'NESTED-MARKER-4e\n');
    writeFileSync(join(run.cwd, 'CLAUDE.md'), `ROOT\n@loop.md\n@${join(run.home, 'outside.md')}\n`);
    writeFileSync(join(run.cwd, 'loop.md'), 'LOOP\n@CLAUDE.md\n');
    writeFileSync(join(run.home, 'outside.md'), 'OUTSIDE-MARKER\n');
    mkdirSync(join(run.cwd, '.claude'));
    writeFileSync(join(run.cwd, '.claude', 'CLAUDE.md'), Buffer.from([0x41, 0, 0x42]));
    const msgs = await collect(query({ prompt: 'read it', options: run.options({ settingSources: ['project'], allowedTools: ['Read'] }) }));
    const [first, second] = run.requests();
    expect(sentText(first)).not.toContain('NESTED-MARKER-4e');
    expect(sentText(second)).toContain(`Contents of ${join(run.cwd, 'sub', 'CLAUDE.md')}`);
    expect(sentText(second)).toContain('NESTED-MARKER-4e');
    expect(sentText(first)).not.toContain('OUTSIDE-MARKER');
    const warnings = msgs.filter((m): m is SDKMessage & { content: string } => m.type === 'system' && m.subtype === 'informational').map((m) => m.content);
    expect(warnings.sort()).toEqual(
      [
        `memory file ${join(run.cwd, '.claude', 'CLAUDE.md')} is binary; skipped`,
        `memory file ${join(run.cwd, 'CLAUDE.md')} imports ${join(run.home, 'outside.md')}, outside the working directories; skipped`,
        `memory file ${join(run.cwd, 'loop.md')} imports ${join(run.cwd, 'CLAUDE.md')}, which imports it back; the loop is cut there`,
      ].sort(),
    );
  });
});

describe('system prompt through the SDK', () => {
  it('the claude_code preset: agentd prompt, environment in a second block, append last; excludeDynamicSections moves the environment', async () => {
    const run = scriptedRun(TEXT);
    await collect(query({ prompt: 'hi', options: run.options({ settingSources: [], systemPrompt: { type: 'preset', preset: 'claude_code', append: 'APPENDED-1a' } }) }));
    const sys = (run.requests()[0]?.system ?? []).map((b) => b.text);
    expect(sys.length).toBe(3);
    expect(sys[0]).toContain('run by agentd');
    expect(sys[1]).toContain(`- Working directory: ${run.cwd}`);
    expect(sys[2]).toBe('APPENDED-1a');

    const run2 = scriptedRun(TEXT);
    await collect(query({ prompt: 'hi', options: run2.options({ settingSources: [], systemPrompt: { type: 'preset', preset: 'claude_code', excludeDynamicSections: true } }) }));
    const req = run2.requests()[0];
    expect((req?.system ?? []).map((b) => b.text).join('\n')).not.toContain('Working directory');
    expect(firstUserTexts(req)[0]).toContain(`- Working directory: ${run2.cwd}`);
    // The static block is byte-identical whatever the session: the cross-session cache can hit.
    expect(req?.system?.[0]).toEqual(run.requests()[0]?.system?.[0]);
  });

  it('SYSTEM_PROMPT_DYNAMIC_BOUNDARY splits a custom prompt into two cached blocks and is never sent', async () => {
    const run = scriptedRun(TEXT);
    await collect(query({ prompt: 'hi', options: run.options({ settingSources: [], systemPrompt: ['STATIC-A', 'STATIC-B', SYSTEM_PROMPT_DYNAMIC_BOUNDARY, 'DYNAMIC-C'] }) }));
    const req = run.requests()[0];
    expect(req?.system).toEqual([
      { type: 'text', text: 'STATIC-A\n\nSTATIC-B', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'DYNAMIC-C', cache_control: { type: 'ephemeral' } },
    ]);
    expect(JSON.stringify(req)).not.toContain(SYSTEM_PROMPT_DYNAMIC_BOUNDARY);
  });
});

describe('output styles, mentions and context usage through the SDK', () => {
  it('settings outputStyle selects a project style: initialize lists it, the model gets it; reloadOutputStyles sees a new file', async () => {
    const run = scriptedRun(TEXT);
    mkdirSync(join(run.cwd, '.claude', 'output-styles'), { recursive: true });
    writeFileSync(join(run.cwd, '.claude', 'output-styles', 'pirate.md'), '---\nname: Pirate\ndescription: Arr\n---\nPIRATE-STYLE-3f speak like a pirate.\n');
    writeFileSync(join(run.cwd, '.claude', 'settings.json'), JSON.stringify({ outputStyle: 'Pirate' }));
    const q = query({ prompt: 'hi', options: run.options({ settingSources: ['project'] }) });
    const init = await q.initializationResult();
    expect([init.output_style, init.available_output_styles]).toEqual(['Pirate', ['default', 'Proactive', 'Concise', 'Explanatory', 'Learning', 'Pirate']]);
    writeFileSync(join(run.cwd, '.claude', 'output-styles', 'terse.md'), 'Be terse.\n');
    expect(await q.reloadOutputStyles()).toEqual({ available_output_styles: ['default', 'Proactive', 'Concise', 'Explanatory', 'Learning', 'Pirate', 'terse'] });
    const msgs = await collect(q);
    expect(msgs.find((m) => m.type === 'system' && m.subtype === 'init')).toMatchObject({ output_style: 'Pirate' });
    expect(firstUserTexts(run.requests()[0])).toContain('<system-reminder>\n# Output style: Pirate\nPIRATE-STYLE-3f speak like a pirate.\n</system-reminder>');
  });

  it('an @file mention in the prompt is attached for the model', async () => {
    const run = scriptedRun(TEXT);
    writeFileSync(join(run.cwd, 'notes.txt'), 'MENTIONED-6a\nsecond line\n');
    await collect(query({ prompt: 'Look at @notes.txt please', options: run.options({ settingSources: [] }) }));
    const texts = firstUserTexts(run.requests()[0]);
    expect(texts.at(-1)).toBe('Look at @notes.txt please');
    expect(texts.at(-2)).toContain(`The user mentioned ${join(run.cwd, 'notes.txt')}`);
    expect(texts.at(-2)).toContain('1\tMENTIONED-6a\n2\tsecond line');
  });

  it('getContextUsage lists the memory files and counts them as their own category', async () => {
    const run = scriptedRun(TEXT);
    project(run.cwd);
    const q = query({ prompt: 'hello', options: run.options({ settingSources: ['project'] }) });
    const usage = await q.getContextUsage();
    await collect(q);
    expect(usage.memoryFiles.map((f) => [f.path, f.type])).toEqual([
      [join(run.cwd, 'CLAUDE.md'), 'Project'],
      [join(run.cwd, 'docs', 'guide.md'), 'Project'],
    ]);
    expect(usage.categories.map((c) => c.id)).toEqual(['system_prompt', 'system_tools', 'memory_files', 'autocompact_buffer', 'free_space']);
    expect(usage.isAutoCompactEnabled).toBe(true);
    expect(usage.maxTokens).toBe(1_000_000);
  });
});
