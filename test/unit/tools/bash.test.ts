// The Bash tool with real (short) processes: result shapes as Claude Code reports them, exit codes, merged
// output, live progress, cd persistence, timeouts from the environment, concurrency safety and the schema.
// The slow kill/abort/large-output cases are in test/process/bash-kill.test.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BashInput, createBashTool, resolveTimeouts } from '../../../src/tools/builtin/bash.js';
import { toApiSchema } from '../../../src/tools/registry.js';
import { warmShellParser } from '../../../src/tools/shell/index.js';
import type { ToolOutcome } from '../../../src/tools/tool.js';
import { type BashHarness, bashHarness } from './bash-fixture.js';
import { until } from '../../support/wait.js';

let h: BashHarness;
beforeEach(() => {
  h = bashHarness();
});
afterEach(async () => {
  await h.cleanup();
});

const bash = createBashTool();

function run(input: BashInput, ctx = h.ctx()): Promise<ToolOutcome<unknown>> {
  return bash.call(input, ctx);
}

function withoutModifier(o: ToolOutcome<unknown>): Omit<ToolOutcome<unknown>, 'contextModifier'> {
  const { contextModifier: _m, ...rest } = o;
  return rest;
}

describe('Bash results', () => {
  it('returns the output as Claude Code shapes it', async () => {
    expect(await run({ command: 'echo hello' })).toEqual({
      data: { stdout: 'hello', stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
      content: 'hello',
    });
  });

  it('merges stderr into the output, in order, and trims blank edges', async () => {
    const r = await run({ command: 'echo; echo a; echo b >&2; echo c; echo' });
    expect(r).toEqual({
      data: { stdout: 'a\nb\nc', stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
      content: 'a\nb\nc',
    });
  });

  it('reports a non-zero exit as an error: "Exit code N", then the output', async () => {
    expect(await run({ command: 'echo out; echo err >&2; exit 3' })).toEqual({
      data: 'Error: Exit code 3\nout\nerr',
      content: 'Exit code 3\nout\nerr',
      isError: true,
    });
    expect(await run({ command: 'exit 1' })).toEqual({ data: 'Error: Exit code 1', content: 'Exit code 1', isError: true });
  });

  it('reads exit code 1 of grep, diff and test as an answer, not a failure', async () => {
    expect(await run({ command: 'grep needle /dev/null' })).toEqual({
      data: { stdout: '', stderr: '', interrupted: false, isImage: false, noOutputExpected: false, returnCodeInterpretation: 'No matches found' },
      content: '(Bash completed with no output)',
    });
    expect(await run({ command: '[ -e /nonexistent ]' })).toMatchObject({ data: { returnCodeInterpretation: 'Condition is false' }, content: '(Bash completed with no output)' });
    expect(await run({ command: 'echo a > a; echo b > b; diff a b' })).toMatchObject({
      data: { returnCodeInterpretation: 'Files differ', stdout: '1c1\n< a\n---\n> b' },
    });
    expect(await run({ command: 'grep x /nonexistent-file' })).toEqual({
      data: 'Error: Exit code 2\ngrep: /nonexistent-file: No such file or directory',
      content: 'Exit code 2\ngrep: /nonexistent-file: No such file or directory',
      isError: true,
    });
  });

  it('says when a command printed nothing, and whether that was expected', async () => {
    expect(await run({ command: 'true' })).toEqual({
      data: { stdout: '', stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
      content: '(Bash completed with no output)',
    });
    const r = await run({ command: 'mkdir -p made && touch made/x' });
    expect(r.data).toMatchObject({ noOutputExpected: true });
  });

  it('runs with stdin closed, the child environment, and no BASH_ENV leaking into the command', async () => {
    const r = await run({ command: 'cat; echo "agentd=$AGENTD bash_env=[$BASH_ENV] pwd=$(pwd)"' });
    expect(r.content).toBe(`agentd=1 bash_env=[] pwd=${h.cwd}`);
  });

  it('forwards output as it arrives', async () => {
    // The command prints its second line only once the test has seen the first as progress (a marker file), so
    // a busy machine cannot merge the two into one chunk: the first must arrive while the command still runs.
    const marker = join(h.cwd, 'seen-first');
    const done = run({ command: `echo first; while [ ! -e ${marker} ]; do sleep 0.01; done; echo second` });
    await until(() => h.progress.length === 1, 'the first line as progress');
    writeFileSync(marker, '');
    await done;
    const texts = h.progress.map((p) => p.output);
    expect(texts).toEqual(['first\n', 'second\n']);
    expect(h.progress.every((p) => p.kind === 'output')).toBe(true);
    expect(h.progress.at(-1)?.totalBytes).toBe(13);
  });

  it('tracks the process group while it lives', async () => {
    await run({ command: 'echo $$' });
    expect(h.groups).toHaveLength(1);
    expect(h.tracker.size).toBe(0);
  });
});

describe('cd persistence', () => {
  it('moves the shared cwd when the command ends inside the working directories', async () => {
    mkdirSync(join(h.cwd, 'sub'));
    const r = await run({ command: 'cd sub' });
    expect(r.contextModifier?.({ cwd: h.cwd, additionalDirectories: [] })).toEqual({ cwd: join(h.cwd, 'sub'), additionalDirectories: [] });
    expect(r.content).toBe('(Bash completed with no output)');
  });

  it('keeps the cwd and says so when the command ends outside them', async () => {
    const r = await run({ command: 'cd /' });
    expect(withoutModifier(r)).toEqual({
      data: { stdout: '', stderr: `Shell cwd was reset to ${h.cwd}`, interrupted: false, isImage: false, noOutputExpected: true },
      content: `Shell cwd was reset to ${h.cwd}`,
    });
    expect(r.contextModifier).toBeUndefined();
  });

  it('accepts additional directories and the project root given at construction', async () => {
    mkdirSync(join(h.cwd, 'a'));
    const extra = join(h.spillDir);
    const r = await run({ command: `cd ${extra}` }, h.ctx({ shared: { additionalDirectories: [extra] } }));
    expect(r.contextModifier).toBeDefined();
    const rooted = createBashTool({ projectDir: h.cwd });
    const up = await rooted.call({ command: 'cd ..' }, h.ctx({ shared: { cwd: join(h.cwd, 'a') } }));
    expect(up.contextModifier?.({ cwd: join(h.cwd, 'a'), additionalDirectories: [] }).cwd).toBe(h.cwd);
  });

  it('does not move when the command fails or does not cd', async () => {
    mkdirSync(join(h.cwd, 'sub'));
    expect((await run({ command: 'cd sub && false' })).contextModifier).toBeUndefined();
    expect((await run({ command: 'echo x' })).contextModifier).toBeUndefined();
  });
});

describe('timeouts', () => {
  it('reads the default and the maximum from the child environment, options first', () => {
    expect(resolveTimeouts({}, {})).toEqual({ def: 120_000, max: 600_000 });
    expect(resolveTimeouts({ BASH_DEFAULT_TIMEOUT_MS: '5000', BASH_MAX_TIMEOUT_MS: '9000' }, {})).toEqual({ def: 5000, max: 9000 });
    expect(resolveTimeouts({ BASH_DEFAULT_TIMEOUT_MS: '700000' }, {})).toEqual({ def: 700_000, max: 700_000 });
    expect(resolveTimeouts({ BASH_DEFAULT_TIMEOUT_MS: 'junk' }, { maxTimeoutMs: 1000 })).toEqual({ def: 120_000, max: 120_000 });
    expect(resolveTimeouts({ BASH_DEFAULT_TIMEOUT_MS: '5000' }, { defaultTimeoutMs: 10 })).toEqual({ def: 10, max: 600_000 });
  });

  it('clamps the requested timeout to the maximum', async () => {
    const local = bashHarness({ env: { BASH_MAX_TIMEOUT_MS: '300', BASH_DEFAULT_TIMEOUT_MS: '300' } });
    try {
      const started = Date.now();
      const r = await bash.call({ command: 'sleep 5', timeout: 60_000 }, local.ctx());
      expect(Date.now() - started).toBeLessThan(2000);
      expect(r.content).toBe('Command timed out after 0.3s\n<error>Command was aborted before completion</error>');
    } finally {
      await local.cleanup();
    }
  });
});

describe('tool contract', () => {
  it('is concurrency-safe only for read-only foreground commands', async () => {
    expect(await bash.isConcurrencySafe({ command: 'git status && ls -la | wc -l' })).toBe(true);
    expect(await bash.isConcurrencySafe({ command: 'ls; rm -rf x' })).toBe(false);
    expect(await bash.isConcurrencySafe({ command: 'ls > out' })).toBe(false);
    expect(await bash.isConcurrencySafe({ command: 'ls', run_in_background: true })).toBe(false);
  });

  it('answers isReadOnly synchronously once the parser is loaded', async () => {
    await warmShellParser();
    expect(bash.isReadOnly({ command: 'cat x | head' })).toBe(true);
    expect(bash.isReadOnly({ command: 'touch x' })).toBe(false);
  });

  it('declares its subject, interrupt behaviour and sibling cancelling', () => {
    expect(bash.permissionSubject?.({ command: 'rm x' }, { cwd: '/', additionalDirectories: [] })).toEqual({ kind: 'command', command: 'rm x' });
    expect({ name: bash.name, interrupt: bash.interruptBehavior, cancels: bash.cancelsSiblingsOnError }).toEqual({
      name: 'Bash',
      interrupt: 'cancel',
      cancels: true,
    });
  });

  it('validates the working directory and the command', async () => {
    const env = h.env;
    expect(await bash.validateInput?.({ command: 'ls' }, { shared: { cwd: join(h.cwd, 'gone'), additionalDirectories: [] }, env })).toEqual({
      ok: false,
      message: `Working directory does not exist: ${join(h.cwd, 'gone')}`,
    });
    expect(await bash.validateInput?.({ command: '  ' }, { shared: { cwd: h.cwd, additionalDirectories: [] }, env })).toEqual({
      ok: false,
      message: 'The command is empty',
    });
    expect(await bash.validateInput?.({ command: 'ls' }, { shared: { cwd: h.cwd, additionalDirectories: [] }, env })).toEqual({ ok: true });
  });

  it('has Claude Code input schema and rejects unknown fields', () => {
    expect(bash.inputJsonSchema && Object.keys(bash.inputJsonSchema['properties'] as object)).toEqual([
      'command',
      'timeout',
      'description',
      'run_in_background',
      'dangerouslyDisableSandbox',
    ]);
    expect(toApiSchema(bash.inputSchema)).toMatchObject({ required: ['command'], additionalProperties: false });
    expect(bash.inputSchema.safeParse({ command: 'ls', bogus: 1 }).success).toBe(false);
    expect(bash.inputSchema.safeParse({ command: 'ls', timeout: 5, description: 'd', run_in_background: false }).success).toBe(true);
  });

  it('fails with a clear error when bash cannot be started', async () => {
    const local = bashHarness({ env: { PATH: '/nonexistent' } });
    try {
      await expect(bash.call({ command: 'echo hi' }, local.ctx())).rejects.toThrow(/^Failed to start bash: .*ENOENT/);
    } finally {
      await local.cleanup();
    }
  });

  it('does not start a command when the call is already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    expect(await run({ command: 'touch should-not-exist' }, h.ctx({ signal: ac.signal }))).toEqual({
      data: { stdout: '', stderr: '<error>Command was aborted before completion</error>', interrupted: true, isImage: false },
      content: '<error>Command was aborted before completion</error>',
      isError: true,
    });
    expect(h.groups).toEqual([]);
  });
});
