// Rule files (.claude/rules, <config dir>/rules): where they go among the memory files (Claude Code 2.1.330's
// order, measured), settingSources gating, subfolders, `paths` scoping (lists, one string with a brace set),
// broken frontmatter; a scoped rule is sent once with the first tool call on a file it names.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMemoryFiles } from '../../../src/project/memory.js';
import { NestedMemory } from '../../../src/project/nested-memory.js';
import { listRuleFiles, parseRule, ruleApplies } from '../../../src/project/rules.js';
import { engineReadAccess } from '../../support/read-access.js';

let top: string;
let home: string;
let repo: string;
let cwd: string;
beforeEach(() => {
  top = mkdtempSync(join(tmpdir(), 'agentd-rules-'));
  home = join(top, 'home');
  repo = join(top, 'repo');
  cwd = join(repo, 'app');
  mkdirSync(cwd, { recursive: true });
});
afterEach(() => {
  rmSync(top, { recursive: true, force: true });
});

function put(rel: string, text: string, root = top): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

const load = (sources: Array<'user' | 'project' | 'local'>) => loadMemoryFiles({ cwd, configDir: join(home, '.claude'), homeDir: home, sources, additionalDirectories: [], readAccess: engineReadAccess({ cwd }) });

describe('rule files', () => {
  it('go after their place’s CLAUDE.md files and before CLAUDE.local.md; `paths` rules are kept apart', async () => {
    put('home/.claude/CLAUDE.md', 'user memory');
    put('home/.claude/rules/u.md', 'user rule');
    put('repo/CLAUDE.md', 'repo memory');
    put('repo/.claude/rules/r.md', 'repo rule');
    put('repo/app/CLAUDE.md', 'app memory');
    put('repo/app/.claude/CLAUDE.md', 'dot memory');
    put('repo/app/.claude/rules/b.md', '---\ndescription: style\n---\nb rule');
    put('repo/app/.claude/rules/a/nested.md', 'nested rule @x.md');
    put('repo/app/.claude/rules/a/x.md', 'imported by the nested rule, and a rule itself');
    put('repo/app/.claude/rules/notes.txt', 'not markdown');
    put('repo/app/.claude/rules/ts.md', '---\npaths: src/**/*.{ts,tsx}\n---\nts rule\n');
    put('repo/app/.claude/rules/docs.md', '---\npaths:\n  - "docs/*.md"\n  - README.md\n---\ndocs rule\n');
    put('repo/app/.claude/rules/broken.md', '---\npaths: [unclosed\n---\nbroken\n');
    put('repo/app/CLAUDE.local.md', 'local memory');
    const all = await load(['user', 'project', 'local']);
    expect(all.files.map((f) => [f.path.slice(top.length), f.kind, f.text, f.depth])).toEqual([
      ['/home/.claude/CLAUDE.md', 'user', 'user memory', 0],
      ['/home/.claude/rules/u.md', 'user', 'user rule', 0],
      ['/repo/CLAUDE.md', 'project', 'repo memory', 0],
      ['/repo/.claude/rules/r.md', 'project', 'repo rule', 0],
      ['/repo/app/CLAUDE.md', 'project', 'app memory', 0],
      ['/repo/app/.claude/CLAUDE.md', 'project', 'dot memory', 0],
      ['/repo/app/.claude/rules/a/nested.md', 'project', 'nested rule @x.md', 0],
      ['/repo/app/.claude/rules/a/x.md', 'project', 'imported by the nested rule, and a rule itself', 1],
      ['/repo/app/.claude/rules/b.md', 'project', 'b rule', 0],
      ['/repo/app/CLAUDE.local.md', 'local', 'local memory', 0],
    ]);
    expect(all.scopedRules).toEqual([
      { path: join(cwd, '.claude/rules/docs.md'), kind: 'project', base: cwd, patterns: ['docs/*.md', 'README.md'], text: 'docs rule\n' },
      { path: join(cwd, '.claude/rules/ts.md'), kind: 'project', base: cwd, patterns: ['src/**/*.{ts,tsx}'], text: 'ts rule\n' },
    ]);
    expect(all.problems).toEqual([
      { kind: 'invalid_frontmatter', file: join(cwd, '.claude/rules/broken.md'), message: `rule file ${join(cwd, '.claude/rules/broken.md')}: line 1: unterminated inline list; skipped` },
    ]);
  });

  it('are read only for the sources settingSources lists', async () => {
    put('home/.claude/rules/u.md', 'user rule');
    put('home/.claude/rules/scoped.md', '---\npaths: "*.json"\n---\nuser scoped');
    put('repo/app/.claude/rules/p.md', 'project rule');
    const project = await load(['project']);
    expect(project.files.map((f) => f.text)).toEqual(['project rule']);
    expect(project.scopedRules).toEqual([]);
    const user = await load(['user']);
    expect(user.files.map((f) => f.text)).toEqual(['user rule']);
    // A user rule's globs are relative to the working directory.
    expect(user.scopedRules.map((r) => [r.base, r.patterns])).toEqual([[cwd, ['*.json']]]);
    expect(await load(['local'])).toEqual({ files: [], scopedRules: [], problems: [] });
    expect(await load([])).toEqual({ files: [], scopedRules: [], problems: [] });
  });

  it('follow symlinked folders inside the project, and list a file reached twice (a link back up) once', async () => {
    put('repo/app/docs/shared/team.md', 'team rule');
    put('repo/app/.claude/rules/own.md', 'own rule');
    symlinkSync(join(cwd, 'docs/shared'), join(cwd, '.claude/rules/linked'));
    symlinkSync('..', join(cwd, '.claude/rules/loop'));
    expect(await listRuleFiles(join(cwd, '.claude/rules'))).toEqual([join(cwd, '.claude/rules/linked/team.md'), join(cwd, '.claude/rules/own.md')]);
    expect((await load(['project'])).files.map((f) => f.text)).toEqual(['team rule', 'own rule']);
  });

  it('skip a rule that leads out of the project (a link to a file or a folder outside), saying so', async () => {
    put('shared/team.md', 'team rule');
    put('secret.txt', 'outside secret');
    put('repo/app/.claude/rules/own.md', 'own rule');
    symlinkSync(join(top, 'shared'), join(cwd, '.claude/rules/linked'));
    symlinkSync(join(top, 'secret.txt'), join(cwd, '.claude/rules/secret.md'));
    const r = await load(['project']);
    expect(r.files.map((f) => f.text)).toEqual(['own rule']);
    expect(r.problems.map((p) => [p.kind, p.file.slice(top.length)])).toEqual([
      ['outside_link', '/repo/app/.claude/rules/linked/team.md'],
      ['outside_link', '/repo/app/.claude/rules/secret.md'],
    ]);
  });

  it('parse `paths` as a list or one string; other frontmatter is dropped from the text', () => {
    expect(parseRule('---\npaths: a/*.ts, "b/{x,y}.md"\n---\nbody')).toEqual({ ok: true, body: 'body', paths: ['a/*.ts', 'b/{x,y}.md'] });
    expect(parseRule('---\npaths: []\n---\nbody')).toEqual({ ok: true, body: 'body', paths: undefined });
    expect(parseRule('plain\n')).toEqual({ ok: true, body: 'plain\n', paths: undefined });
    const rule = { path: '/r/.claude/rules/x.md', kind: 'project' as const, base: '/r', patterns: ['src/**/*.{ts,tsx}', '*.json'], text: '' };
    expect([ruleApplies(rule, '/r/src/a/b.tsx'), ruleApplies(rule, '/r/package.json'), ruleApplies(rule, '/r/src/a.js'), ruleApplies(rule, '/other/src/a.ts'), ruleApplies(rule, '/r/sub/package.json')]).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe('scoped rules in tool results', () => {
  it('send a rule once, with the first tool call on a file it names (not for a directory search)', async () => {
    put('repo/app/.claude/rules/ts.md', '---\npaths: ["src/**/*.ts"]\n---\nts rule\n');
    put('repo/app/.claude/rules/json.md', '---\npaths: "*.json"\n---\njson rule\n');
    const { scopedRules } = await load(['project']);
    const n = new NestedMemory({ cwd, sources: ['project'], alreadyLoaded: [], scopedRules, maxFileBytes: 1000, onProblem: () => undefined });
    expect(await n.reminders(join(cwd, 'src'), true)).toEqual([]);
    expect(await n.reminders(join(cwd, 'README.md'))).toEqual([]);
    expect(await n.reminders(join(cwd, 'src/deep/a.ts'))).toEqual([`Contents of ${join(cwd, '.claude/rules/ts.md')} (instructions for files matching src/**/*.ts):\n\nts rule\n`]);
    expect(await n.reminders(join(cwd, 'src/b.ts'))).toEqual([]);
    expect(await n.reminders('package.json')).toEqual([`Contents of ${join(cwd, '.claude/rules/json.md')} (instructions for files matching *.json):\n\njson rule\n`]);
  });

  it('read a subdirectory’s own .claude/rules with its CLAUDE.md, the first time a tool works there', async () => {
    put('repo/app/sub/CLAUDE.md', 'sub memory\n');
    put('repo/app/sub/.claude/rules/plain.md', 'sub plain rule\n');
    put('repo/app/sub/.claude/rules/scoped.md', '---\npaths: "*.txt"\n---\nsub txt rule\n');
    put('repo/app/sub/.claude/rules/bad.md', '---\npaths: [x\n---\nbad\n');
    put('repo/app/sub/CLAUDE.local.md', 'sub local\n');
    const problems: string[] = [];
    const n = new NestedMemory({ cwd, sources: ['project', 'local'], alreadyLoaded: [], maxFileBytes: 1000, onProblem: (p) => problems.push(p.message) });
    const sub = join(cwd, 'sub');
    expect(await n.reminders(join(sub, 'a.md'))).toEqual([
      `Contents of ${join(sub, 'CLAUDE.md')} (instructions for this directory):\n\nsub memory\n`,
      `Contents of ${join(sub, '.claude/rules/plain.md')} (instructions for this directory):\n\nsub plain rule\n`,
      `Contents of ${join(sub, 'CLAUDE.local.md')} (instructions for this directory):\n\nsub local\n`,
    ]);
    expect(problems).toEqual([`rule file ${join(sub, '.claude/rules/bad.md')}: line 1: unterminated inline list; skipped`]);
    // The scoped rule is relative to `sub` and waits for a file it names.
    expect(await n.reminders(join(sub, 'b.txt'))).toEqual([`Contents of ${join(sub, '.claude/rules/scoped.md')} (instructions for files matching *.txt):\n\nsub txt rule\n`]);
    expect(await n.reminders(join(sub, 'c.txt'))).toEqual([]);
    expect(problems).toHaveLength(1);
  });

  it('read no subdirectory rules without the project source', async () => {
    put('repo/app/sub/.claude/rules/plain.md', 'sub plain rule\n');
    const n = new NestedMemory({ cwd, sources: ['local'], alreadyLoaded: [], maxFileBytes: 1000, onProblem: () => undefined });
    expect(await n.reminders(join(cwd, 'sub', 'a.md'))).toEqual([]);
  });
});
