// Which argv is a subcommand (Claude Code's rule: the first word, without -p/--print, after any global flags),
// which one-shot runs must read their prompt from stdin, and the pieces the unreachable-endpoint path relies on.
import { describe, expect, it } from 'vitest';
import { parseArgv } from '../../../src/cli/flags.js';
import { needsPromptFromStdin, resolveOptions, StartupError } from '../../../src/cli/options.js';
import { findSubcommand } from '../../../src/cli/subcommands/index.js';
import { connectionCause } from '../../../src/model/anthropic.js';

const find = (argv: string[]) => {
  const call = findSubcommand(argv, parseArgv(argv));
  return call && { word: call.word, known: call.spec !== undefined, args: call.args, globalArgs: call.globalArgs };
};

describe('findSubcommand', () => {
  it('the first word, with the global flags before it kept apart (the ACP adapter puts --settings first)', () => {
    expect(find(['auth', 'status', '--json'])).toEqual({ word: 'auth', known: true, args: ['status', '--json'], globalArgs: [] });
    expect(find(['--settings', '{"a":1}', 'auth', 'status', '--json'])).toEqual({ word: 'auth', known: true, args: ['status', '--json'], globalArgs: ['--settings', '{"a":1}'] });
    expect(find(['--verbose', '', 'upgrade'])).toEqual({ word: 'upgrade', known: true, args: [], globalArgs: ['--verbose', ''] });
    expect(find(['help', 'mcp'])).toEqual({ word: 'help', known: false, args: ['mcp'], globalArgs: [] });
    expect(find(['plugin', 'list'])).toEqual({ word: 'plugin', known: false, args: ['list'], globalArgs: [] });
  });

  it('no subcommand with -p/--print anywhere, after --, for a flag value, or for other words', () => {
    expect(find(['-p', 'auth', 'status'])).toBeUndefined();
    expect(find(['auth', 'status', '--print'])).toBeUndefined();
    expect(find(['--', 'auth', 'status'])).toBeUndefined();
    expect(find(['--model', 'doctor'])).toBeUndefined();
    expect(find(['hello'])).toBeUndefined();
    expect(find(['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'])).toBeUndefined();
  });
});

describe('prompt checks', () => {
  const opts = (argv: string[]) => resolveOptions(parseArgv(argv), {});

  it('a word without -p is an unknown command; a blank -p prompt is empty; --help and -v still work', () => {
    const reason = (argv: string[]) => {
      try {
        opts(argv);
        return 'ok';
      } catch (e) {
        return e instanceof StartupError ? e.reason : 'other';
      }
    };
    expect(['hello', '-p \t', '--help hello', '-v hello', '-p hello'].map((a) => reason(a.split(' ')))).toEqual(['unknown_command', 'empty_prompt', 'ok', 'ok', 'ok']);
    expect(reason(['--input-format', 'stream-json', 'hello'])).toBe('unknown_command');
  });

  it('one-shot runs without a prompt argument read stdin; SDK (stream-json) runs never do', () => {
    expect(needsPromptFromStdin(opts(['-p']))).toBe(true);
    expect(needsPromptFromStdin(opts([]))).toBe(true);
    expect(needsPromptFromStdin(opts(['-p', 'hi']))).toBe(false);
    expect(needsPromptFromStdin(opts(['--input-format', 'stream-json', '--output-format', 'stream-json']))).toBe(false);
  });
});

describe('connectionCause', () => {
  it('finds the socket error down the cause chain', () => {
    const sys = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 9 });
    expect(connectionCause(new Error('Connection error.', { cause: new TypeError('fetch failed', { cause: sys }) }))).toBe('ECONNREFUSED 127.0.0.1:9');
    expect(connectionCause(Object.assign(new Error('getaddrinfo ENOTFOUND x.invalid'), { code: 'ENOTFOUND', hostname: 'x.invalid' }))).toBe('ENOTFOUND x.invalid');
    expect(connectionCause(new Error('outer', { cause: new Error('inner') }))).toBe('inner');
    expect(connectionCause(undefined)).toBeUndefined();
  });
});
