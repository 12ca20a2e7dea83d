import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { type DecisionInput, decide } from '../../../src/permissions/engine.js';
import { shellAnalyzer } from '../../../src/cli/shell-analyzer.js';
import { bashContentMatches, pathPattern } from '../../../src/permissions/match.js';
import type { PermissionModeName } from '../../../src/permissions/modes.js';
import { RuleSet, parseRule, rulesFrom } from '../../../src/permissions/rules.js';
import type { AnyTool, PermissionSubject } from '../../../src/tools/tool.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentd-perm-')));
const cwd = join(root, 'work');
const outside = join(root, 'outside');
mkdirSync(join(cwd, 'src'), { recursive: true });
mkdirSync(outside, { recursive: true });
symlinkSync(outside, join(cwd, 'link-out'));

function tool(name: string, subject: (i: Record<string, unknown>) => PermissionSubject, readOnly = false): AnyTool {
  return {
    name,
    description: name,
    inputSchema: z.record(z.string(), z.unknown()),
    isConcurrencySafe: () => readOnly,
    isReadOnly: () => readOnly,
    interruptBehavior: 'cancel',
    call: async () => ({ data: null, content: '' }),
    permissionSubject: (i) => subject(i as Record<string, unknown>),
  };
}
const Read = tool('Read', (i) => ({ kind: 'read', path: String(i['file_path']) }), true);
const Write = tool('Write', (i) => ({ kind: 'write', path: String(i['file_path']) }));
const Bash = tool('Bash', (i) => ({ kind: 'command', command: String(i['command']) }));
const Todo = tool('TodoWrite', () => ({ kind: 'none' }), true);

const analyzer = shellAnalyzer;

function input(t: AnyTool, i: Record<string, unknown>, opts: { mode?: PermissionModeName; allow?: string[]; deny?: string[]; ask?: string[]; hook?: DecisionInput['hook'] } = {}): DecisionInput {
  const rules = new RuleSet();
  rules.add(rulesFrom(opts.allow ?? [], 'allow', 'cliArg', cwd));
  rules.add(rulesFrom(opts.deny ?? [], 'deny', 'cliArg', cwd));
  rules.add(rulesFrom(opts.ask ?? [], 'ask', 'projectSettings', cwd));
  return { tool: t, input: i, hook: opts.hook, shared: { cwd, additionalDirectories: [] }, mode: opts.mode ?? 'default', rules, analyzer };
}

describe('rule syntax', () => {
  it('parses tool names, specifiers, escapes and whole-tool forms', () => {
    expect(parseRule('Bash')).toEqual({ toolName: 'Bash' });
    expect(parseRule('Bash(git status:*)')).toEqual({ toolName: 'Bash', ruleContent: 'git status:*' });
    expect(parseRule('Bash(echo \\(hi\\))')).toEqual({ toolName: 'Bash', ruleContent: 'echo (hi)' });
    expect(parseRule('Read(*)')).toEqual({ toolName: 'Read' });
    expect(parseRule('mcp__srv__tool')).toEqual({ toolName: 'mcp__srv__tool' });
    expect(parseRule('Bash(unclosed')).toBeUndefined();
    expect(parseRule('bad name(x)')).toBeUndefined();
  });

  it('matches Bash specifiers: prefix at a word boundary, wildcards, exact', () => {
    expect(bashContentMatches('git status:*', 'git status --short')).toBe(true);
    expect(bashContentMatches('git status:*', 'git statuses')).toBe(false);
    expect(bashContentMatches('git * main', 'git push origin main')).toBe(true);
    expect(bashContentMatches('npm run build', 'npm run build --prod')).toBe(false);
    expect(bashContentMatches('ls *', 'ls')).toBe(true);
  });

  it('anchors path specifiers like Claude Code', () => {
    expect(pathPattern('//etc/passwd', '/base', '/cwd')).toBe('/etc/passwd{,/**}');
    expect(pathPattern('/secrets/**', '/base', '/cwd')).toBe('/base/secrets/**');
    expect(pathPattern('./src/**', '/base', '/cwd')).toBe('/cwd/src/**');
    expect(pathPattern('*.env', '/base', '/cwd')).toBe('/cwd/**/*.env');
    expect(pathPattern('docs/', '/base', '/cwd')).toBe('/cwd/**/docs/**'); // gitignore: a directory name matches at any depth
  });
});

describe('decisions', () => {
  it('reads inside the working directory are allowed by the mode; outside they ask with the blocked path', async () => {
    expect(await decide(input(Read, { file_path: join(cwd, 'src/a.ts') }))).toMatchObject({ behavior: 'allow', decidedBy: 'mode:default' });
    expect(await decide(input(Read, { file_path: '/etc/hostname' }))).toMatchObject({ behavior: 'ask', blockedPath: '/etc/hostname', reasonType: 'workingDir' });
  });

  it('resolves .. and symlinks before judging a path', async () => {
    expect(await decide(input(Write, { file_path: join(cwd, 'src/../../outside/x') }, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'ask', blockedPath: join(outside, 'x') });
    expect(await decide(input(Write, { file_path: join(cwd, 'link-out/new.txt') }, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'ask', blockedPath: join(outside, 'new.txt') });
  });

  it('an allow rule must match the real path too; a deny rule matching either form denies', async () => {
    const viaLink = join(cwd, 'link-out/secret');
    expect(await decide(input(Read, { file_path: viaLink }, { allow: ['Read(./link-out/**)'] }))).toMatchObject({ behavior: 'ask' });
    expect(await decide(input(Read, { file_path: viaLink }, { deny: [`Read(//${outside.slice(1)}/**)`] }))).toMatchObject({ behavior: 'deny', reasonType: 'rule' });
  });

  it('acceptEdits allows edits inside, default asks, plan denies, bypass allows everything but deny rules', async () => {
    const f = { file_path: join(cwd, 'src/new.ts') };
    expect(await decide(input(Write, f, { mode: 'acceptEdits' }))).toMatchObject({ behavior: 'allow', decidedBy: 'mode:acceptEdits', pinnedRealPath: join(cwd, 'src/new.ts') });
    expect(await decide(input(Write, f))).toMatchObject({ behavior: 'ask', suggestions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }] });
    expect(await decide(input(Write, f, { mode: 'plan' }))).toMatchObject({ behavior: 'deny', decidedBy: 'mode:plan' });
    expect(await decide(input(Write, { file_path: '/etc/x' }, { mode: 'bypassPermissions' }))).toMatchObject({ behavior: 'allow', decidedBy: 'mode:bypassPermissions' });
    expect(await decide(input(Write, f, { mode: 'bypassPermissions', deny: ['Edit(./src/**)'] }))).toMatchObject({ behavior: 'deny' });
  });

  it('bypass mode skips ask rules, except the managed policy\'s', async () => {
    const f = { file_path: join(cwd, 'src/new.ts') };
    expect(await decide(input(Write, f, { mode: 'bypassPermissions', ask: ['Write'] }))).toMatchObject({ behavior: 'allow', decidedBy: 'mode:bypassPermissions' });
    const d = input(Write, f, { mode: 'bypassPermissions' });
    d.rules.add(rulesFrom(['Write'], 'ask', 'policySettings', cwd));
    expect(await decide(d)).toMatchObject({ behavior: 'ask', decidedBy: 'rule:Write@policySettings', reason: 'The managed policy rule Write requires asking, in every mode.' });
  });

  it('deny beats ask beats allow, and beats a hook’s allow', async () => {
    const c = { command: 'git status' };
    expect(await decide(input(Bash, c, { allow: ['Bash'], ask: ['Bash(git status:*)'] }))).toMatchObject({ behavior: 'ask', reasonType: 'rule' });
    expect(await decide(input(Bash, c, { allow: ['Bash'], ask: ['Bash'], deny: ['Bash(git:*)'] }))).toMatchObject({ behavior: 'deny' });
    expect(await decide(input(Bash, c, { deny: ['Bash(git:*)'], hook: { behavior: 'allow', source: 'h' } }))).toMatchObject({ behavior: 'deny', reasonType: 'rule' });
    expect(await decide(input(Bash, { command: 'make' }, { hook: { behavior: 'allow', source: 'h' } }))).toMatchObject({ behavior: 'allow', decidedBy: 'hook:h' });
    expect(await decide(input(Bash, { command: 'make' }, { allow: ['Bash'], hook: { behavior: 'deny', reason: 'no', source: 'h' } }))).toMatchObject({ behavior: 'deny', message: 'no' });
  });

  it('an allow rule covers a command only if it covers every segment; unanalysable commands ask', async () => {
    expect(await decide(input(Bash, { command: 'git status; rm -rf x' }, { allow: ['Bash(git status:*)'] }))).toMatchObject({ behavior: 'ask' });
    expect(await decide(input(Bash, { command: 'git add . && git commit -m x' }, { allow: ['Bash(git add:*)', 'Bash(git commit:*)'] }))).toMatchObject({ behavior: 'allow', reasonType: 'subcommandResults' });
    expect(await decide(input(Bash, { command: 'echo $(id)' }, { allow: ['Bash(echo:*)'] }))).toMatchObject({ behavior: 'ask', reason: expect.stringContaining('command substitution') });
    expect(await decide(input(Bash, { command: 'sudo git status' }, { allow: ['Bash(git status:*)'] }))).toMatchObject({ behavior: 'ask' });
    expect(await decide(input(Bash, { command: 'echo "a' }, { allow: ['Bash'] }))).toMatchObject({ behavior: 'allow' });
    expect(await decide(input(Bash, { command: 'echo "a' }, { allow: ['Bash(echo:*)'] }))).toMatchObject({ behavior: 'ask', reasonType: 'other' });
    expect(await decide(input(Bash, { command: 'ls -la' }))).toMatchObject({ behavior: 'allow', reasonType: 'subcommandResults' });
  });

  it('tools with no subject are allowed when read-only and asked otherwise', async () => {
    expect(await decide(input(Todo, {}))).toMatchObject({ behavior: 'allow' });
    expect(await decide(input(tool('Other', () => ({ kind: 'none' })), {}))).toMatchObject({ behavior: 'ask', howToAllow: 'add Other to --allowedTools' });
  });
});
