// The system prompt builder and the context placed before the first user message (issue 12 item 2).
import { describe, expect, it } from 'vitest';
import type { ApiMessage } from '../../../src/model/types.js';
import { CONTEXT_1M_BETA, baseModelId, contextWindowFor } from '../../../src/session/context-window.js';
import { EMPTY_CUSTOM_IDENTITY, SYSTEM_PROMPT_DYNAMIC_BOUNDARY, buildPrompt, environmentSection, withContext } from '../../../src/session/system-prompt.js';

const ENV = { cwd: '/w', platform: 'linux', date: '2026-01-02', model: 'm', additionalDirectories: ['/x'], isGitRepo: true, osVersion: 'Linux 6' };
const ENV_TEXT = '# Environment\n- Working directory: /w\n- Additional working directories: /x\n- Git repository: yes\n- Platform: linux\n- OS version: Linux 6\n- Today\'s date: 2026-01-02\n- Model: m';
const cached = { type: 'ephemeral' } as const;

describe('system prompt', () => {
  it('environment section', () => {
    expect(environmentSection(ENV)).toBe(ENV_TEXT);
  });

  it('[""] and unset custom: the identity line; the environment and memory go before the first prompt', () => {
    expect(buildPrompt({ kind: 'custom', parts: [''] }, ENV, { reminders: ['<system-reminder>\nmem\n</system-reminder>'] })).toEqual({
      system: [{ type: 'text', text: EMPTY_CUSTOM_IDENTITY, cache_control: cached }],
      context: [`<system-reminder>\n${ENV_TEXT}\n</system-reminder>`, '<system-reminder>\nmem\n</system-reminder>'],
    });
  });

  it('the boundary marker splits a custom prompt and is dropped; a marker alone leaves the identity', () => {
    expect(buildPrompt({ kind: 'custom', parts: ['a', SYSTEM_PROMPT_DYNAMIC_BOUNDARY, 'b', 'c'], append: 'z' }, ENV).system).toEqual([
      { type: 'text', text: 'a', cache_control: cached },
      { type: 'text', text: 'b\n\nc' },
      { type: 'text', text: 'z', cache_control: cached },
    ]);
    expect(buildPrompt({ kind: 'custom', parts: [SYSTEM_PROMPT_DYNAMIC_BOUNDARY] }, ENV).system).toEqual([{ type: 'text', text: EMPTY_CUSTOM_IDENTITY, cache_control: cached }]);
  });

  it('preset: static block, dynamic block with environment and style; excludeDynamicSections moves the dynamic part', () => {
    const style = { name: 'S', prompt: 'Talk so.', keepCodingInstructions: false };
    const p = buildPrompt({ kind: 'preset', append: 'A' }, ENV, { outputStyle: style });
    expect(p.system.map((b) => b.cache_control)).toEqual([cached, undefined, cached]);
    expect(p.system[0]?.text).not.toContain('Read files before editing');
    expect(p.system[1]?.text).toBe(`${ENV_TEXT}\n\n# Output style: S\nTalk so.`);
    expect(p.context).toEqual([]);
    const x = buildPrompt({ kind: 'preset', excludeDynamicSections: true }, ENV);
    expect(x.system.length).toBe(1);
    expect(x.system[0]?.text).toContain('Read files before editing');
    expect(x.context).toEqual([`<system-reminder>\n${ENV_TEXT}\n</system-reminder>`]);
  });

  it('withContext puts the context before the first user message and returns the same object for the same inputs', () => {
    const first: ApiMessage = Object.freeze({ role: 'user', content: 'hi' });
    const msgs: ApiMessage[] = [first, { role: 'assistant', content: [{ type: 'text', text: 'yo' }] }];
    const a = withContext(msgs, ['C']);
    expect(a[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'C' }, { type: 'text', text: 'hi' }] });
    expect(withContext(msgs, ['C'])[0]).toBe(a[0]);
    expect(withContext(msgs, [])).toBe(msgs);
    expect(msgs[0]).toBe(first);
  });
});

describe('context windows', () => {
  it('the catalog\'s windows; [1m] is 1M, the 1M beta where the model takes it; an unknown model 1M (Claude Code 2.1.330, measured)', () => {
    expect([
      contextWindowFor('claude-opus-5-5'),
      contextWindowFor('claude-sonnet-5-5'),
      contextWindowFor('claude-sonnet-4-5'),
      contextWindowFor('claude-opus-4-6'),
      contextWindowFor('claude-sonnet-4-5[1m]'),
      contextWindowFor('claude-sonnet-4-5-20250929', [CONTEXT_1M_BETA]),
      contextWindowFor('claude-haiku-4-5', [CONTEXT_1M_BETA]),
      contextWindowFor('claude-haiku-4-5[1m]'),
      contextWindowFor('us.anthropic.claude-sonnet-4-5-20250929-v1:0'),
      contextWindowFor('some-sonnet-like'),
    ]).toEqual([1_000_000, 1_000_000, 200_000, 200_000, 1_000_000, 1_000_000, 200_000, 1_000_000, 200_000, 1_000_000]);
    expect(baseModelId('claude-sonnet-4-5[1m]')).toBe('claude-sonnet-4-5');
  });
});
