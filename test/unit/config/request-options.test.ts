// The session's request options resolved once from flags, environment and settings files (src/config/
// request-options.ts, settings-effort.ts), with Claude Code 2.1.330's precedence (measured: test/measure/
// request-defaults.measure.ts). Whole objects compared.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FlagInput, resolveConfig } from '../../../src/config/config.js';
import type { RequestFlags } from '../../../src/config/request-options.js';
import { StartupError } from '../../../src/config/errors.js';
import type { RequestSettings } from '../../../src/model/request-defaults.js';
import { tempDir } from '../../support/daemon.js';

const NO_REQUEST_FLAGS: RequestFlags = { thinking: undefined, maxThinkingTokens: undefined, thinkingDisplay: undefined, effort: undefined, verbose: false, outputFormat: 'stream-json' };

function resolve(files: { user?: unknown; project?: unknown; flag?: unknown } = {}, request: Partial<RequestFlags> = {}, env: Record<string, string> = {}) {
  const home = tempDir('agentd-req-home-');
  const cwd = tempDir('agentd-req-ws-');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(join(cwd, '.claude'), { recursive: true });
  if (files.user !== undefined) writeFileSync(join(home, '.claude/settings.json'), JSON.stringify(files.user));
  if (files.project !== undefined) writeFileSync(join(cwd, '.claude/settings.json'), JSON.stringify(files.project));
  const flags: FlagInput = {
    model: undefined,
    permissionMode: undefined,
    allowDangerouslySkipPermissions: false,
    allowedTools: [],
    disallowedTools: [],
    addDirs: [],
    settingSources: undefined,
    settings: files.flag === undefined ? undefined : JSON.stringify(files.flag),
    managedSettings: undefined,
    request: { ...NO_REQUEST_FLAGS, ...request },
  };
  const warnings: string[] = [];
  const config = resolveConfig({ flags, env: { HOME: home, AGENTD_MANAGED_SETTINGS_DIR: join(home, 'etc'), ...env }, cwd, home, trust: () => ({}), warnRule: (r) => warnings.push(r) });
  return { request: config.request, warnings, unsupported: config.settings.unsupported.map((u) => u.key) };
}

const PLAIN: RequestSettings = {
  thinking: { kind: 'default' },
  thinkingOverride: null,
  display: 'updates',
  displayOverride: null,
  outputDisplay: 'updates',
  effort: { override: undefined, flag: undefined, layers: [] },
  maxOutputTokens: undefined,
  subagentEffort: undefined,
};
const noLayer = { user: false, effortLevel: undefined, maxEffortLevel: undefined, models: {} };

describe('thinking: which source wins', () => {
  it('nothing asked: the model default; the output format sets the display', () => {
    expect(resolve().request).toEqual(PLAIN);
    expect(resolve({}, { outputFormat: 'text' }).request).toEqual({ ...PLAIN, display: 'omitted', outputDisplay: 'omitted' });
    expect(resolve({}, { outputFormat: 'json' }).request).toEqual({ ...PLAIN, display: 'omitted', outputDisplay: 'omitted' });
    expect(resolve({}, { outputFormat: 'json', verbose: true }).request).toEqual(PLAIN);
  });

  it('CLAUDE_CODE_DISABLE_THINKING > MAX_THINKING_TOKENS > --thinking disabled > --max-thinking-tokens > --thinking enabled > alwaysThinkingEnabled: false', () => {
    const off = { user: { alwaysThinkingEnabled: false } };
    const thinking = (files: Parameters<typeof resolve>[0], flags: Partial<RequestFlags>, env: Record<string, string> = {}) => resolve(files, flags, env).request.thinking;
    expect(thinking(off, { thinking: 'on', maxThinkingTokens: 3000 }, { CLAUDE_CODE_DISABLE_THINKING: '1', MAX_THINKING_TOKENS: '4000' })).toEqual({ kind: 'suppressed' });
    expect(thinking(off, { thinking: 'off', maxThinkingTokens: 2000 }, { MAX_THINKING_TOKENS: '4000' })).toEqual({ kind: 'on', budget: 4000 });
    expect(thinking({}, {}, { MAX_THINKING_TOKENS: '0' })).toEqual({ kind: 'off' });
    expect(thinking(off, { thinking: 'off', maxThinkingTokens: 3000 })).toEqual({ kind: 'off' });
    expect(thinking(off, { maxThinkingTokens: 3000 })).toEqual({ kind: 'on', budget: 3000 });
    expect(thinking({}, { maxThinkingTokens: 0 })).toEqual({ kind: 'off' });
    expect(thinking(off, { thinking: 'on' })).toEqual({ kind: 'on', budget: undefined });
    expect(thinking(off, {})).toEqual({ kind: 'off' });
    expect(thinking({ project: { alwaysThinkingEnabled: false } }, {})).toEqual({ kind: 'off' });
    expect(thinking({ user: { alwaysThinkingEnabled: true } }, {})).toEqual({ kind: 'default' });
  });

  it('display: --thinking-display summarized/highlights; omitted is the output default; showThinkingSummaries without a flag sends none', () => {
    expect(resolve({}, { thinkingDisplay: 'summarized' }).request.display).toBe('summarized');
    expect(resolve({}, { thinkingDisplay: 'highlights' }).request.display).toBe('highlights');
    expect(resolve({}, { thinkingDisplay: 'omitted' }).request.display).toBe('updates');
    expect(resolve({ user: { showThinkingSummaries: true } }).request.display).toBe('unset');
    expect(resolve({ user: { showThinkingSummaries: true } }, { thinkingDisplay: 'omitted' }).request.display).toBe('updates');
  });
});

describe('effort: flag, environment and settings layers', () => {
  it('--effort and CLAUDE_CODE_EFFORT_LEVEL (auto and unset mean no effort; case and "med" as Claude Code reads them)', () => {
    expect(resolve({}, { effort: 'low' }, { CLAUDE_CODE_EFFORT_LEVEL: 'High' }).request.effort).toEqual({ override: 'high', flag: 'low', layers: [] });
    expect(resolve({}, {}, { CLAUDE_CODE_EFFORT_LEVEL: 'auto' }).request.effort.override).toBe('auto');
    expect(resolve({}, {}, { CLAUDE_CODE_EFFORT_LEVEL: 'unset' }).request.effort.override).toBe('auto');
    expect(resolve({}, {}, { CLAUDE_CODE_EFFORT_LEVEL: 'med' }).request.effort.override).toBe('medium');
    expect(resolve({}, {}, { CLAUDE_CODE_SUBAGENT_EFFORT: 'low' }).request.subagentEffort).toBe('low');
    expect(resolve({}, {}, { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '5000' }).request.maxOutputTokens).toBe(5000);
  });

  it('a bad CLAUDE_CODE_EFFORT_LEVEL or CLAUDE_CODE_SUBAGENT_EFFORT stops the start-up, naming it', () => {
    expect(() => resolve({}, {}, { CLAUDE_CODE_EFFORT_LEVEL: 'extreme' })).toThrow(new StartupError('invalid_env_value', 'CLAUDE_CODE_EFFORT_LEVEL must be one of low, medium, high, xhigh, max, auto, got "extreme".'));
    expect(() => resolve({}, {}, { CLAUDE_CODE_SUBAGENT_EFFORT: 'auto' })).toThrow(new StartupError('invalid_env_value', 'CLAUDE_CODE_SUBAGENT_EFFORT must be one of low, medium, high, xhigh, max, got "auto".'));
  });

  it('settings layers, highest first, with modelSettings keyed by family (any spelling of the model)', () => {
    const { request, warnings } = resolve({
      user: { effortLevel: 'low', maxEffortLevel: 'high', modelSettings: { 'claude-opus-4-6-20260101': { effortLevel: 'medium' }, 'us.anthropic.claude-sonnet-4-6': { maxEffortLevel: 'max' } } },
      project: { effortLevel: 'xhigh' },
      flag: { effortLevel: 'max' },
    });
    expect({ layers: request.effort.layers, warnings }).toEqual({
      layers: [
        { ...noLayer, effortLevel: 'max' },
        { ...noLayer, effortLevel: 'xhigh' },
        { user: true, effortLevel: 'low', maxEffortLevel: 'high', models: { 'claude-opus-4-6': { effortLevel: 'medium' }, 'claude-sonnet-4-6': { maxEffortLevel: 'max' } } },
      ],
      warnings: [],
    });
  });

  it('a bad value in a settings file is a warning and ignored, never a skipped file; "max" only from the flag layer', () => {
    const { request, warnings, unsupported } = resolve({
      user: { effortLevel: 'max', maxEffortLevel: 'bogus', alwaysThinkingEnabled: 'yes', modelSettings: { 'claude-opus-5-5': { effortLevel: 'loud', autoCompactWindow: 'auto' } }, model: 'kept' },
    });
    expect({ layers: request.effort.layers, thinking: request.thinking, warnings, unsupported }).toEqual({
      layers: [{ ...noLayer, user: true, models: { 'claude-opus-5-5': {} } }],
      thinking: { kind: 'default' },
      warnings: [
        'modelSettings.claude-opus-5-5.effortLevel "loud" (one of low, medium, high, xhigh)',
        'effortLevel "max" (one of low, medium, high, xhigh)',
        'maxEffortLevel "bogus" (one of low, medium, high, xhigh, max)',
        'alwaysThinkingEnabled "yes" (true or false)',
      ],
      unsupported: ['modelSettings.claude-opus-5-5.autoCompactWindow'],
    });
  });
});
