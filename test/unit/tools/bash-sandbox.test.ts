// The second wall (issue 9 item 6): a Bash command that runs only because the shell analyser judged it
// read-only runs inside the read-only sandbox (bubblewrap). The analyser's mistake is simulated with a fake
// analyser that calls everything read-only; the permission layer then auto-approves a command that writes,
// connects or reads outside, and the jail must stop each effect. Every check has a control: the same command
// approved by the host (not sandboxed) does have the effect, so the tests can fail.
// bubblewrap must be installed (.ci/run and the Dockerfile install it): without it these tests fail loudly.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { type AddressInfo, type Server, createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PermissionVerdict } from '../../../src/executor/pipeline.js';
import { type Logger, silentLogger } from '../../../src/log/logger.js';
import { createPermissionLayer } from '../../../src/permissions/layer.js';
import type { CommandAnalyzer } from '../../../src/permissions/match.js';
import { RuleSet } from '../../../src/permissions/rules.js';
import { type ShellTaskEvent, type ShellTaskInfo } from '../../../src/tools/builtin/background.js';
import { type BashOutput, createBashTool } from '../../../src/tools/builtin/bash.js';
import { type ReadOnlySandbox, bwrapArgs, createReadOnlySandbox, parseReadOnlySandboxPolicy } from '../../../src/tools/sandbox/index.js';
import type { AnyTool, Approval, ToolEnvironment, ToolOutcome } from '../../../src/tools/tool.js';
import { type BashHarness, bashHarness } from './bash-fixture.js';
import { fixedUpdateTarget } from '../../../src/permissions/updates.js';

const bash = createBashTool();

/** The analyser's mistake: every command is a known read-only program with nothing to see. */
const blindAnalyzer: CommandAnalyzer = {
  analyze: async (c) => ({ ok: true, segments: [{ text: c, forms: [c], coverable: true, paths: [] }], readOnly: true, reasons: [], opaque: false }),
};

function layer(sandbox: ReadOnlySandbox | undefined) {
  const rules = new RuleSet();
  return createPermissionLayer({
    rules,
    getMode: () => 'default',
    analyzer: blindAnalyzer,
    prompter: undefined,
    ...(sandbox ? { readOnlySandbox: sandbox } : {}),
    updates: fixedUpdateTarget(rules, '/'),
    logger: silentLogger(),
  });
}

let h: BashHarness;
let sandbox: ReadOnlySandbox;
let env: ToolEnvironment;
let outside: string;

beforeEach(async () => {
  h = bashHarness({ killGraceMs: 300 });
  outside = join(h.cwd, '..', 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'canary.txt'), 'CANARY-OUTSIDE\n');
  writeFileSync(join(h.cwd, 'a.txt'), 'inside the project\n');
  sandbox = createReadOnlySandbox({ policy: 'required', path: process.env['PATH'], home: outside });
  env = { ...h.env, readOnlySandbox: sandbox, background: h.background };
  const s = await sandbox.status();
  // Loud, not skipped: CI installs bubblewrap.
  expect(s, 'bubblewrap must be installed and able to create namespaces (apt-get install bubblewrap)').toMatchObject({ state: 'active', backend: 'bubblewrap' });
});
afterEach(async () => {
  await h.cleanup();
});

/** The permission layer's verdict for `command` with the blind analyser, then the Bash tool with it. */
async function autoApproved(command: string, extra: { run_in_background?: boolean } = {}): Promise<{ verdict: PermissionVerdict; out: ToolOutcome<unknown> }> {
  const verdict = await layer(sandbox).check(
    { tool: bash as AnyTool, input: { command }, toolUseId: 'toolu_1', hook: undefined, shared: { cwd: h.cwd, additionalDirectories: [] } },
    new AbortController().signal,
  );
  if (verdict.behavior !== 'allow') throw new Error(`expected an allow, got ${JSON.stringify(verdict)}`);
  const out = await bash.call({ command, ...extra }, { ...h.ctx({ approval: verdict.approval }), env });
  return { verdict, out };
}

function approvedBy(approval: Approval, command: string): Promise<ToolOutcome<unknown>> {
  return bash.call({ command }, { ...h.ctx({ approval }), env });
}

function text(o: ToolOutcome<unknown>): string {
  return typeof o.content === 'string' ? o.content : JSON.stringify(o.content);
}

describe('a command approved only by the analyser runs in the read-only sandbox', () => {
  it('the permission decision says why: read-only analysis, not a rule, mode or host', async () => {
    const { verdict } = await autoApproved('true');
    expect(verdict).toEqual({
      behavior: 'allow',
      approval: { by: 'read-only-analysis' },
      meta: { decision: 'accept', source: 'config', reasonType: 'subcommandResults', decidedBy: 'mode:default:read-only-command' },
    });
  });

  it('reads in the working directory work, with the right output', async () => {
    const { out } = await autoApproved('cat a.txt && ls');
    expect(out.isError).toBeFalsy();
    expect((out.data as BashOutput).stdout).toBe('inside the project\na.txt');
  });

  it('cannot create a file (an analyser mistake: `ls > marker`), but the host-approved command can', async () => {
    const { out } = await autoApproved('ls > marker');
    expect(existsSync(join(h.cwd, 'marker'))).toBe(false);
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('Read-only file system');
    // Control: approved by the host, not sandboxed, the same command writes.
    const host = await approvedBy({ by: 'host' }, 'ls > marker');
    expect(host.isError).toBeFalsy();
    expect(existsSync(join(h.cwd, 'marker'))).toBe(true);
  });

  it('cannot write anywhere else either: HOME, /tmp (private, thrown away), the spill directory', async () => {
    const { out } = await autoApproved(`echo x > ${join(outside, 'w')}; echo x > /tmp/agentd-sandbox-probe && cat /tmp/agentd-sandbox-probe; echo x > ${join(h.spillDir, 'agentd-bash-init.sh')}; touch ${join(h.spillDir, 'new')}`);
    expect(existsSync(join(outside, 'w'))).toBe(false);
    expect(existsSync('/tmp/agentd-sandbox-probe')).toBe(false);
    expect(existsSync(join(h.spillDir, 'new'))).toBe(false);
    expect(readFileSync(join(h.spillDir, 'agentd-bash-init.sh'), 'utf8')).not.toContain('x\n');
    expect(text(out)).toContain('x'); // the private /tmp is writable inside the jail
  });

  it('cannot reach a TCP server on the host’s loopback, which the host-approved command reaches', async () => {
    const server: Server = createServer((s) => s.destroy());
    let connections = 0;
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const command = `bash -c 'echo hi > /dev/tcp/127.0.0.1/${port}' && echo CONNECTED`;
      const { out } = await autoApproved(command);
      expect(text(out)).not.toContain('CONNECTED');
      expect(out.isError).toBe(true);
      expect(connections).toBe(0);
      const host = await approvedBy({ by: 'host' }, command);
      expect(text(host)).toContain('CONNECTED');
      await vi.waitFor(() => expect(connections).toBe(1), { timeout: 5000 });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('cannot read outside the working directories (a canary next to the project, agentd’s /proc environ)', async () => {
    const canary = join(outside, 'canary.txt');
    const { out } = await autoApproved(`cat ${canary}; cat /proc/${process.pid}/environ; ls /root /home /var 2>&1 | head -3`);
    expect(text(out)).not.toContain('CANARY-OUTSIDE');
    expect(text(out)).toContain('No such file or directory');
    expect(text(out)).not.toContain('PATH=');
    const host = await approvedBy({ by: 'host' }, `cat ${canary}`);
    expect(text(host)).toContain('CANARY-OUTSIDE');
  });

  it('reads system paths (the programs run) but not the secrets in /etc', async () => {
    expect(bwrapArgs({ cwd: h.cwd, readable: [h.cwd] }).join(' ')).toContain('--ro-bind /dev/null /etc/shadow');
    const { out } = await autoApproved('head -c 4 /etc/passwd; echo; cat /etc/shadow; ls -A /etc/ssh | wc -l; echo x > /dev/null && echo devnull-ok');
    const lines = text(out).split('\n');
    expect(lines[0]).toBe('root');
    expect(lines[1]).toMatch(/^(cat: \/etc\/shadow: Permission denied)?$/);
    expect(lines.slice(-2)).toEqual(['0', 'devnull-ok']);
    expect(text(out)).not.toContain('root:');
  });

  it('hides the user’s credentials when HOME is a working directory', async () => {
    const home = h.cwd;
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'SSH-KEY-CANARY\n');
    writeFileSync(join(home, '.netrc'), 'NETRC-CANARY\n');
    const sb = createReadOnlySandbox({ policy: 'required', path: process.env['PATH'], home });
    const out = await bash.call({ command: 'cat .ssh/id_ed25519 .netrc a.txt; ls -A .ssh' }, { ...h.ctx({ approval: { by: 'read-only-analysis' } }), env: { ...env, readOnlySandbox: sb } });
    expect(text(out)).not.toContain('CANARY');
    expect(text(out)).toContain('inside the project');
  });

  it('keeps `cd` inside the working directories (the cwd file is the one writable file)', async () => {
    mkdirSync(join(h.cwd, 'sub'));
    const { out } = await autoApproved('cd sub && pwd');
    expect((out.data as BashOutput).stdout).toBe(join(h.cwd, 'sub'));
    expect(out.contextModifier?.({ cwd: h.cwd, additionalDirectories: [] })).toEqual({ cwd: join(h.cwd, 'sub'), additionalDirectories: [] });
  });

  it('in a linked git worktree, git finds its repository (the git directories are readable, the main tree is not)', async () => {
    const main = join(outside, 'main');
    const wt = join(outside, 'wt');
    const git = (args: string, cwd: string) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args.split(' ')], { cwd, stdio: 'pipe' });
    mkdirSync(main);
    git('init -q', main);
    writeFileSync(join(main, 'secret.txt'), 'MAIN-TREE-CANARY\n');
    git('add secret.txt', main);
    git('commit -qm init', main);
    git(`worktree add -q ${wt}`, main);
    writeFileSync(join(wt, 'new.txt'), 'x');
    const out = await bash.call(
      { command: `git status --short; git log --oneline | wc -l; cat ${join(main, 'secret.txt')}` },
      { ...h.ctx({ approval: { by: 'read-only-analysis' }, shared: { cwd: wt } }), env },
    );
    expect(text(out)).toContain('\n?? new.txt\n1\n'); // after "Exit code 1" (the cat failed)
    expect(text(out)).not.toContain('MAIN-TREE-CANARY');
  });

  it('finds programs on PATH outside the system paths (~/.cargo/bin), never HOME itself', async () => {
    const bin = join(outside, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'hello-from-path'), '#!/bin/sh\necho hi-from-path\n', { mode: 0o755 });
    const withPath = { ...env, childEnv: { ...env.childEnv, PATH: `${bin}:${outside}:${env.childEnv['PATH'] ?? ''}` } };
    const out = await bash.call({ command: `hello-from-path; cat ${join(outside, 'canary.txt')}` }, { ...h.ctx({ approval: { by: 'read-only-analysis' } }), env: withPath });
    expect(text(out)).toContain('hi-from-path');
    expect(text(out)).not.toContain('CANARY-OUTSIDE'); // `outside` is HOME here: on PATH, but not readable
  });

  it('reads --add-dir directories too', async () => {
    const extra = join(h.cwd, '..', 'extra');
    mkdirSync(extra);
    writeFileSync(join(extra, 'e.txt'), 'extra dir\n');
    const out = await bash.call(
      { command: `cat ${join(extra, 'e.txt')}` },
      { ...h.ctx({ approval: { by: 'read-only-analysis' }, shared: { additionalDirectories: [extra] } }), env },
    );
    expect((out.data as BashOutput).stdout).toBe('extra dir');
  });

  it('background read-only commands run in the sandbox too', async () => {
    const { out } = await autoApproved('echo started; ls > marker', { run_in_background: true });
    const id = (out.data as BashOutput).backgroundTaskId as string;
    const done = await new Promise<ShellTaskInfo>((resolve) => {
      const now = h.background.get(id);
      if (now && now.status !== 'running') return resolve(now);
      const off = h.background.onEvent((e: ShellTaskEvent) => {
        if (e.type === 'ended' && e.task.id === id) {
          off();
          resolve(e.task);
        }
      });
    });
    expect(existsSync(join(h.cwd, 'marker'))).toBe(false);
    const output = readFileSync(done.outputPath, 'utf8');
    expect(output).toContain('started');
    expect(output).toContain('Read-only file system');
    expect(done.status).toBe('failed');
  });

  it('a timeout stops the jailed command and everything in it (its own session and pid namespace)', async () => {
    const marker = `sleep 3${process.pid % 10}.${Date.now() % 1000}`;
    const running = (): boolean =>
      readdirSync('/proc').some((p) => {
        if (!/^\d+$/.test(p)) return false;
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() === marker;
        } catch {
          return false;
        }
      });
    const call = bash.call({ command: `${marker} & ${marker}; wait`, timeout: 3000 }, { ...h.ctx({ approval: { by: 'read-only-analysis' } }), env });
    await vi.waitFor(() => expect(running()).toBe(true), { timeout: 10_000, interval: 20 });
    const out = await call;
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('Command timed out');
    await vi.waitFor(() => expect(running()).toBe(false), { timeout: 10_000, interval: 50 });
  });

  it('the private /tmp is capped (it is memory): 256 MiB', async () => {
    const { out } = await autoApproved('df --output=size -B1 /tmp | tail -1');
    expect((out.data as BashOutput).stdout.trim()).toBe(String(256 * 1024 * 1024));
  });

  it('the model cannot lower the wall with dangerouslyDisableSandbox', async () => {
    const out = await bash.call({ command: 'ls > marker', dangerouslyDisableSandbox: true }, { ...h.ctx({ approval: { by: 'read-only-analysis' } }), env });
    expect(out.isError).toBe(true);
    expect(existsSync(join(h.cwd, 'marker'))).toBe(false);
  });

  it('rule-, mode- and hook-approved commands are not sandboxed', async () => {
    for (const by of ['rule', 'mode', 'hook', 'unchecked'] as const) {
      const out = await approvedBy({ by }, `touch marker-${by}`);
      expect(out.isError, by).toBeFalsy();
      expect(existsSync(join(h.cwd, `marker-${by}`)), by).toBe(true);
    }
  });
});

describe('without a sandbox', () => {
  function warnings(): { logger: Logger; lines: unknown[] } {
    const lines: unknown[] = [];
    const logger = { ...silentLogger(), warn: (...a: unknown[]) => void lines.push(a) } as unknown as Logger;
    return { logger, lines };
  }

  it('required: a read-only command asks (denied here: nobody can be asked) and never runs unconfined', async () => {
    const sb = createReadOnlySandbox({ policy: 'required', path: process.env['PATH'], bwrap: '/nonexistent/bwrap' });
    const verdict = await layer(sb).check(
      { tool: bash as AnyTool, input: { command: 'ls' }, toolUseId: 'toolu_1', hook: undefined, shared: { cwd: h.cwd, additionalDirectories: [] } },
      new AbortController().signal,
    );
    expect(verdict).toMatchObject({ behavior: 'deny', meta: { decidedBy: 'sandbox:required' } });
    expect(verdict.behavior === 'deny' && verdict.message).toContain('AGENTD_READONLY_SANDBOX=required');
    // Belt and braces: a read-only-analysis approval that reached the tool anyway does not run.
    await expect(bash.call({ command: 'touch marker' }, { ...h.ctx({ approval: { by: 'read-only-analysis' } }), env: { ...env, readOnlySandbox: sb } })).rejects.toThrow(/required .* but unavailable/);
    expect(existsSync(join(h.cwd, 'marker'))).toBe(false);
  });

  it('auto: read-only commands still run unasked (the analyser is the only wall) and agentd says so once', async () => {
    const { logger, lines } = warnings();
    const sb = createReadOnlySandbox({ policy: 'auto', path: '/nonexistent', logger });
    expect(await sb.status()).toEqual({ state: 'unavailable', reason: 'bubblewrap (bwrap) is not installed' });
    const verdict = await layer(sb).check(
      { tool: bash as AnyTool, input: { command: 'ls' }, toolUseId: 'toolu_1', hook: undefined, shared: { cwd: h.cwd, additionalDirectories: [] } },
      new AbortController().signal,
    );
    expect(verdict).toMatchObject({ behavior: 'allow', approval: { by: 'read-only-analysis' } });
    const e2 = { ...env, readOnlySandbox: sb };
    await bash.call({ command: 'echo one' }, { ...h.ctx({ approval: { by: 'read-only-analysis' } }), env: e2 });
    const out = await bash.call({ command: 'cat a.txt' }, { ...h.ctx({ approval: { by: 'read-only-analysis' } }), env: e2 });
    expect((out.data as BashOutput).stdout).toBe('inside the project');
    expect(lines).toEqual([[{ reason: 'bubblewrap (bwrap) is not installed' }, expect.stringContaining('read-only sandbox unavailable: read-only commands run unconfined')]]);
  });

  it('a bwrap that cannot create the sandbox counts as unavailable', async () => {
    const fake = join(outside, 'bwrap');
    writeFileSync(fake, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', { mode: 0o755 });
    const sb = createReadOnlySandbox({ policy: 'auto', path: undefined, bwrap: fake });
    expect(await sb.status()).toEqual({ state: 'unavailable', reason: `${fake} cannot create the sandbox (exit 1): bwrap: No permissions to create new namespace` });
  });

  it('a bwrap without --size (before 0.5) still jails, without the /tmp cap', async () => {
    const real = (process.env['PATH'] ?? '').split(':').map((d) => join(d, 'bwrap')).find((p) => existsSync(p)) as string;
    const old = join(outside, 'old-bwrap');
    writeFileSync(old, `#!/bin/sh\nfor a in "$@"; do [ "$a" = --size ] && { echo "bwrap: Unknown option --size" >&2; exit 1; }; done\nexec ${real} "$@"\n`, { mode: 0o755 });
    const sb = createReadOnlySandbox({ policy: 'required', path: undefined, bwrap: old });
    expect(await sb.status()).toEqual({ state: 'active', backend: 'bubblewrap', path: old });
    const out = await bash.call({ command: 'ls > marker; cat a.txt' }, { ...h.ctx({ approval: { by: 'read-only-analysis' } }), env: { ...env, readOnlySandbox: sb } });
    expect(text(out)).toContain('inside the project');
    expect(existsSync(join(h.cwd, 'marker'))).toBe(false);
  });

  it('off: never sandboxed, never detected', async () => {
    const sb = createReadOnlySandbox({ policy: 'off', path: process.env['PATH'] });
    expect(await sb.status()).toEqual({ state: 'off' });
    expect(await sb.jailer()).toBeUndefined();
    const out = await bash.call({ command: 'touch marker' }, { ...h.ctx({ approval: { by: 'read-only-analysis' } }), env: { ...env, readOnlySandbox: sb } });
    expect(out.isError).toBeFalsy();
    expect(existsSync(join(h.cwd, 'marker'))).toBe(true);
  });
});

describe('policy and arguments', () => {
  it('AGENTD_READONLY_SANDBOX: required | auto | off, unset means auto, anything else is refused', () => {
    expect([undefined, '', 'auto', 'required', 'off', ' off '].map(parseReadOnlySandboxPolicy)).toEqual([
      { ok: true, policy: 'auto' },
      { ok: true, policy: 'auto' },
      { ok: true, policy: 'auto' },
      { ok: true, policy: 'required' },
      { ok: true, policy: 'off' },
      { ok: true, policy: 'off' },
    ]);
    expect(parseReadOnlySandboxPolicy('on')).toEqual({ ok: false, message: 'AGENTD_READONLY_SANDBOX must be one of required, auto, off (got "on")' });
  });

  it('the jail has no network, no capabilities, dies with agentd, and binds the working directory read-only', () => {
    const args = bwrapArgs({ cwd: h.cwd, readable: [h.cwd] });
    expect(args.slice(0, 5)).toEqual(['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL']);
    expect(args).not.toContain('--share-net');
    expect(args.join(' ')).toContain(`--ro-bind ${h.cwd} ${h.cwd}`);
    expect(args.filter((a) => a === '--bind')).toEqual([]);
    expect(args.slice(-2)).toEqual(['--chdir', h.cwd]);
  });
});
