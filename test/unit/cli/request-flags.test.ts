// The flags that shape model requests, parsed as the official SDKs pass them (`--thinking=adaptive` with `=`,
// `--max-thinking-tokens N`, `--thinking-display X`, `--effort X`), and a bad value refused naming it.
import { describe, expect, it } from 'vitest';
import { parseArgv } from '../../../src/cli/flags.js';
import { StartupError, resolveOptions } from '../../../src/cli/options.js';

const STREAM = ['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'];
const requestFlags = (...args: string[]) => {
  const o = resolveOptions(parseArgv([...STREAM, ...args]), {});
  return { thinking: o.thinking, maxThinkingTokens: o.maxThinkingTokens, thinkingDisplay: o.thinkingDisplay, effort: o.effort, verbose: o.verbose };
};
const NONE = { thinking: undefined, maxThinkingTokens: undefined, thinkingDisplay: undefined, effort: undefined, verbose: true };

describe('request flags', () => {
  it('what the TS SDK passes for its thinking, effort and maxThinkingTokens options (sdk.mjs argv)', () => {
    expect(requestFlags()).toEqual(NONE);
    expect(requestFlags('--thinking=adaptive', '--thinking-display', 'summarized')).toEqual({ ...NONE, thinking: 'on', thinkingDisplay: 'summarized' });
    expect(requestFlags('--thinking=enabled')).toEqual({ ...NONE, thinking: 'on' });
    expect(requestFlags('--thinking=disabled')).toEqual({ ...NONE, thinking: 'off' });
    expect(requestFlags('--max-thinking-tokens', '8000')).toEqual({ ...NONE, maxThinkingTokens: 8000 });
    expect(requestFlags('--max-thinking-tokens', '0')).toEqual({ ...NONE, maxThinkingTokens: 0 });
    expect(requestFlags('--effort', 'xhigh', '--thinking-display', 'highlights')).toEqual({ ...NONE, effort: 'xhigh', thinkingDisplay: 'highlights' });
  });

  it('--effort as Claude Code reads it: any case, "med", and ultracode (whose effort is xhigh)', () => {
    expect([requestFlags('--effort', 'LOW').effort, requestFlags('--effort=med').effort, requestFlags('--effort', 'ultracode').effort, requestFlags('--effort', 'max').effort]).toEqual(['low', 'medium', 'xhigh', 'max']);
  });

  it('a bad --effort, --thinking or --thinking-display stops the start-up, naming the value', () => {
    expect(() => requestFlags('--effort', 'extreme')).toThrow(new StartupError('invalid_flag_value', '--effort must be one of low, medium, high, xhigh, max, got "extreme".'));
    expect(() => requestFlags('--effort', '50')).toThrow(new StartupError('invalid_flag_value', '--effort must be one of low, medium, high, xhigh, max, got "50".'));
    expect(() => requestFlags('--thinking', 'sometimes')).toThrow(new StartupError('invalid_flag_value', '--thinking must be one of enabled, adaptive, disabled, got "sometimes".'));
    expect(() => requestFlags('--thinking-display', 'loud')).toThrow(new StartupError('invalid_flag_value', '--thinking-display must be one of summarized, omitted, highlights, got "loud".'));
  });
});
