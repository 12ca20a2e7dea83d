// Links, protected names and MCP rule names in the permission layer (issue 22, items 4 and 5): the findings of
// links.ts, the decisions they make, the protected list, and how `mcp__…` rules name a server's tools.
import { linkSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellAnalyzer } from '../../../src/cli/shell-analyzer.js';
import { fileUriPath, resourceTools } from '../../../src/mcp/resource-tools.js';
import { adaptMcpTool } from '../../../src/mcp/tool-adapter.js';
import { type DecisionInput, decide } from '../../../src/permissions/engine.js';
import { linkAsk, linkDenial, readIdentityFinding, writeLinkFindings } from '../../../src/permissions/links.js';
import { ruleNamesTool } from '../../../src/permissions/match.js';
import type { PermissionModeName } from '../../../src/permissions/modes.js';
import { resolveToolPath, workingDirs } from '../../../src/permissions/paths.js';
import { protectedDirOf } from '../../../src/permissions/protected.js';
import { RuleSet, rulesFrom } from '../../../src/permissions/rules.js';
import { builtinTools } from '../../../src/tools/builtin/index.js';
import type { AnyTool } from '../../../src/tools/tool.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentd-links-')));
const cwd = join(root, 'work');
const outside = join(root, 'outside');
for (const d of [join(cwd, 'src'), join(cwd, 'secrets'), join(cwd, '.git'), outside]) mkdirSync(d, { recursive: true });
writeFileSync(join(cwd, '.git/config'), '[core]\n');
writeFileSync(join(cwd, 'plain.txt'), 'plain\n');
writeFileSync(join(cwd, 'secrets/.env'), 'KEY=1\n');
writeFileSync(join(outside, 'o.txt'), 'out\n');
linkSync(join(cwd, '.git/config'), join(cwd, 'src/cfg'));
linkSync(join(cwd, 'secrets/.env'), join(cwd, 'hl-env'));
linkSync(join(outside, 'o.txt'), join(cwd, 'hl-out'));
symlinkSync('plain.txt', join(cwd, 'link.txt'));
symlinkSync(outside, join(cwd, 'outdir'));

const dirs = workingDirs(cwd, []);
const rp = (p: string) => resolveToolPath(p, cwd);
const tools = new Map<string, AnyTool>(builtinTools({ projectDir: cwd }).map((t) => [t.name, t]));
const tool = (name: string): AnyTool => tools.get(name) as AnyTool;

function input(t: AnyTool, i: Record<string, unknown>, opts: { mode?: PermissionModeName; allow?: string[]; deny?: string[] } = {}): DecisionInput {
  const rules = new RuleSet();
  rules.add(rulesFrom(opts.allow ?? [], 'allow', 'cliArg', cwd));
  rules.add(rulesFrom(opts.deny ?? [], 'deny', 'cliArg', cwd));
  return { tool: t, input: i, hook: undefined, shared: { cwd, additionalDirectories: [] }, mode: opts.mode ?? 'default', rules, analyzer: shellAnalyzer };
}

describe('link findings', () => {
  it('a write: symbolic link at the leaf, other names, a path that lands outside; none for a plain file', () => {
    const at = (p: string) => writeLinkFindings(p, rp(p), cwd, dirs);
    expect({
      symlink: at(join(cwd, 'link.txt')),
      hard: at(join(cwd, 'src/cfg')),
      hardOut: at(join(cwd, 'hl-out')),
      carried: at(join(cwd, 'outdir/new.txt')),
      plain: at(join(cwd, 'plain.txt')),
      fresh: at(join(cwd, 'src/new.ts')),
    }).toEqual({
      symlink: [{ kind: 'symlinkLeaf', path: join(cwd, 'link.txt'), target: join(cwd, 'plain.txt') }],
      hard: [{ kind: 'hardLinks', path: join(cwd, 'src/cfg'), links: 2 }],
      hardOut: [{ kind: 'hardLinks', path: join(cwd, 'hl-out'), links: 2 }],
      carried: [{ kind: 'carriedOut', path: join(cwd, 'outdir/new.txt'), target: join(outside, 'new.txt') }],
      plain: [],
      fresh: [],
    });
  });

  it('a read: another name of a denied file is denied; one a rule rooted at / cannot check is unverified', () => {
    const deny = (...r: string[]) => rulesFrom(r, 'deny', 'cliArg', cwd);
    const [secrets] = deny('Read(./secrets/**)');
    const [rooted] = deny('Read(//**/id_rsa)');
    expect({
      denied: readIdentityFinding(rp(join(cwd, 'hl-env')), deny('Read(./secrets/**)'), [cwd]),
      byName: readIdentityFinding(rp(join(cwd, 'hl-env')), deny('Read(.env)'), [cwd])?.kind,
      unrelated: readIdentityFinding(rp(join(cwd, 'src/cfg')), deny('Read(./secrets/**)'), [cwd]),
      single: readIdentityFinding(rp(join(cwd, 'plain.txt')), deny('Read(//**/id_rsa)'), [cwd]),
      unverified: readIdentityFinding(rp(join(cwd, 'hl-env')), deny('Read(//**/id_rsa)'), [cwd]),
    }).toEqual({
      denied: { kind: 'identityDeny', path: join(cwd, 'hl-env'), other: join(cwd, 'secrets/.env'), rule: secrets },
      byName: 'identityDeny',
      unrelated: undefined,
      single: undefined,
      unverified: {
        kind: 'identityUnverified',
        path: join(cwd, 'hl-env'),
        links: 2,
        rule: rooted,
        reason: `${join(cwd, 'hl-env')} has 2 names on disk (hard links), and not all of the files the rule Read(//**/id_rsa) covers could be checked for being one of them.`,
      },
    });
  });

  it('what the findings decide: refusals and asks, in Claude Code’s words where it has them', () => {
    const [rule] = rulesFrom(['Read(./secrets/**)'], 'deny', 'cliArg', cwd);
    expect({
      symlink: linkDenial([{ kind: 'symlinkLeaf', path: '/p/l', target: '/p/t' }], 'Write(/p/l)'),
      identity: linkDenial([{ kind: 'identityDeny', path: '/p/h', other: '/p/secrets/.env', rule: rule as never }], 'Read(/p/h)'),
      carried: linkAsk([{ kind: 'carriedOut', path: '/p/d/n', target: '/o/n' }]),
      hard: linkAsk([{ kind: 'hardLinks', path: '/p/h', links: 3 }]),
      none: [linkDenial([], 'x'), linkAsk([])],
    }).toEqual({
      symlink: { decidedBy: 'safetyCheck:symlink', reasonType: 'other', message: "Refusing to write /p/l: it is a symbolic link. Write to the link's target path instead: /p/t." },
      identity: {
        decidedBy: 'rule:Read(./secrets/**)@cliArg',
        reasonType: 'rule',
        message: 'Permission to use Read(/p/h) has been denied: /p/h is the same file as /p/secrets/.env (a hard link), which the rule Read(./secrets/**) (cliArg) protects.',
      },
      carried: { reason: '/p/d/n resolves through a symlink to /o/n, which is outside the allowed working directories', blockedPath: '/o/n', unverified: false },
      hard: {
        reason: '/p/h has 3 names on disk (hard links); the write replaces this name with a new file and the other names keep the old content, so it always needs explicit permission.',
        unverified: false,
      },
      none: [undefined, undefined],
    });
  });
});

describe('decisions', () => {
  it('a hard-linked file asks in acceptEdits and under allow rules, is denied in dontAsk, allowed in bypass', async () => {
    const w = { file_path: join(cwd, 'src/cfg'), content: 'x' };
    const ask = await decide(input(tool('Write'), w, { mode: 'acceptEdits' }));
    expect(ask).toEqual({
      behavior: 'ask',
      decidedBy: 'safetyCheck',
      reasonType: 'safetyCheck',
      reason: `${join(cwd, 'src/cfg')} has 2 names on disk (hard links); the write replaces this name with a new file and the other names keep the old content, so it always needs explicit permission.`,
      suggestions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
      howToAllow: `use --permission-mode acceptEdits, or an allow rule such as Edit(${join(cwd, 'src/cfg')})`,
      pinnedRealPath: join(cwd, 'src/cfg'),
    });
    const behaviors = await Promise.all(
      [
        input(tool('Edit'), { ...w, old_string: 'a', new_string: 'b' }, { allow: ['Edit(./src/**)'] }),
        input(tool('Write'), w, { mode: 'dontAsk', allow: ['Write'] }),
        input(tool('Write'), w, { mode: 'bypassPermissions' }),
      ].map(async (d) => (await decide(d)).behavior),
    );
    expect(behaviors).toEqual(['ask', 'ask', 'allow']);
  });

  it('a symbolic link is refused in every mode; a write through a symlinked directory to outside asks under Write', async () => {
    const w = { file_path: join(cwd, 'link.txt'), content: 'x' };
    const refused = await decide(input(tool('Write'), w, { mode: 'bypassPermissions' }));
    const carried = await decide(input(tool('Write'), { file_path: join(cwd, 'outdir/new.txt'), content: 'x' }, { allow: ['Write'] }));
    expect({ refused, carried: carried.behavior === 'ask' ? [carried.reason, carried.blockedPath] : carried }).toEqual({
      refused: {
        behavior: 'deny',
        decidedBy: 'safetyCheck:symlink',
        reasonType: 'other',
        message: `Refusing to write ${join(cwd, 'link.txt')}: it is a symbolic link. Write to the link's target path instead: ${join(cwd, 'plain.txt')}.`,
      },
      carried: [`${join(cwd, 'outdir/new.txt')} resolves through a symlink to ${join(outside, 'new.txt')}, which is outside the allowed working directories`, join(outside, 'new.txt')],
    });
  });

  it('a Read of another name of a denied file is denied in every mode, before a hook or an allow rule', async () => {
    const d = await decide(input(tool('Read'), { file_path: join(cwd, 'hl-env') }, { mode: 'bypassPermissions', allow: ['Read'], deny: ['Read(./secrets/**)'] }));
    expect(d).toEqual({
      behavior: 'deny',
      decidedBy: 'rule:Read(./secrets/**)@cliArg',
      reasonType: 'rule',
      message: `Permission to use Read(${join(cwd, 'hl-env')}) has been denied: ${join(cwd, 'hl-env')} is the same file as ${join(cwd, 'secrets/.env')} (a hard link), which the rule Read(./secrets/**) (cliArg) protects.`,
    });
  });
});

describe('protected names', () => {
  it('files and directories that configure execution, compared case-insensitively; plain project files are not', () => {
    const names = ['.mcp.json', '.MCP.JSON', '.gitmodules', 'sub/.envrc', '.vscode/settings.json', '.husky/pre-commit', '.cargo/config.toml', 'x/.bashrc', '.config/git/config', '.git/config', 'package.json', '.gitattributes', 'Makefile', '.github/workflows/ci.yml', 'src/a.ts'];
    expect(Object.fromEntries(names.map((n) => [n, protectedDirOf(rp(join(cwd, n)))]))).toEqual({
      '.mcp.json': 'the file .mcp.json',
      '.MCP.JSON': 'the file .mcp.json',
      '.gitmodules': 'the file .gitmodules',
      'sub/.envrc': 'the file .envrc',
      '.vscode/settings.json': 'inside .vscode/',
      '.husky/pre-commit': 'inside .husky/',
      '.cargo/config.toml': 'inside .cargo/',
      'x/.bashrc': 'the file .bashrc',
      '.config/git/config': 'inside .config/git/',
      '.git/config': 'inside .git/',
      'package.json': undefined,
      '.gitattributes': undefined,
      Makefile: undefined,
      '.github/workflows/ci.yml': undefined,
      'src/a.ts': undefined,
    });
  });
});

describe('MCP rule names', () => {
  it('name a tool by its own server; restricting rules also by the name’s prefix (Claude Code 2.1.330, measured)', () => {
    const rules = ['mcp__h__*', 'mcp__h', 'mcp__h__x', 'mcp__h__x__*', 'mcp__h__x__t', 'mcp__*'];
    const table = (tool: string, server: string | undefined) =>
      Object.fromEntries(
        rules.map((r) => {
          const [rule] = rulesFrom([r], 'allow', 'cliArg', cwd);
          return [r, [ruleNamesTool(rule as never, tool, 'none', server), ruleNamesTool(rule as never, tool, 'none', server, true)]];
        }),
      );
    expect({ hx: table('mcp__h__x__t', 'h__x'), h: table('mcp__h__x', 'h'), unknown: table('mcp__h__x__t', undefined) }).toEqual({
      // [allow, deny/ask]
      hx: { 'mcp__h__*': [false, true], mcp__h: [false, true], mcp__h__x: [false, true], 'mcp__h__x__*': [true, true], mcp__h__x__t: [true, true], 'mcp__*': [false, false] },
      h: { 'mcp__h__*': [true, true], mcp__h: [true, true], mcp__h__x: [true, true], 'mcp__h__x__*': [false, false], mcp__h__x__t: [false, false], 'mcp__*': [false, false] },
      unknown: { 'mcp__h__*': [true, true], mcp__h: [true, true], mcp__h__x: [false, true], 'mcp__h__x__*': [false, true], mcp__h__x__t: [true, true], 'mcp__*': [false, false] },
    });
  });
});

describe('MCP annotations and resources', () => {
  it('readOnlyHint makes a tool concurrency-safe, never read-only for permissions', () => {
    const opts = { server: 'h', source: 'sdk', timeoutMs: 1000, maxOutputChars: 1000, call: async () => ({ content: [] }) };
    const marked = adaptMcpTool({ name: 'm', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }, opts);
    const plain = adaptMcpTool({ name: 'p', inputSchema: { type: 'object' } }, opts);
    expect([marked, plain].map((t) => ({ safe: t.isConcurrencySafe({}), readOnly: t.isReadOnly({}) }))).toEqual([
      { safe: true, readOnly: false },
      { safe: false, readOnly: false },
    ]);
  });

  it('a file: resource is a read of its path; other schemes are read-only; an unmappable URI is not', () => {
    const [, read] = resourceTools({ withResources: () => new Map() }, 1000) as [AnyTool, AnyTool];
    const uris = ['file:///etc/passwd', 'FILE:///etc/%2e%2e/etc/hosts', 'file://localhost/tmp/x', 'file://evil.example/etc/passwd', 'fixture://notes', 'https://example.com/x', '/etc/passwd', 'not a uri'];
    expect(Object.fromEntries(uris.map((uri) => [uri, { path: fileUriPath(uri), subject: read.permissionSubject?.({ server: 's', uri }, { cwd, additionalDirectories: [] }), readOnly: read.isReadOnly({ server: 's', uri }) }]))).toEqual({
      'file:///etc/passwd': { path: '/etc/passwd', subject: { kind: 'read', path: '/etc/passwd' }, readOnly: true },
      'FILE:///etc/%2e%2e/etc/hosts': { path: '/etc/hosts', subject: { kind: 'read', path: '/etc/hosts' }, readOnly: true },
      'file://localhost/tmp/x': { path: '/tmp/x', subject: { kind: 'read', path: '/tmp/x' }, readOnly: true },
      'file://evil.example/etc/passwd': { path: null, subject: { kind: 'none' }, readOnly: false },
      'fixture://notes': { path: undefined, subject: { kind: 'none' }, readOnly: true },
      'https://example.com/x': { path: undefined, subject: { kind: 'none' }, readOnly: true },
      '/etc/passwd': { path: null, subject: { kind: 'none' }, readOnly: false },
      'not a uri': { path: null, subject: { kind: 'none' }, readOnly: false },
    });
  });
});
