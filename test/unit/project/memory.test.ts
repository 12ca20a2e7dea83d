// Memory files: discovery order, settingSources gating, @imports (code spans, depth, loops, outside the
// working directories), the byte cap, binary and unreadable files; nested CLAUDE.md; output styles.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importTargets } from '../../../src/project/imports.js';
import { MAX_IMPORT_DEPTH, loadMemoryFiles, memoryReminder } from '../../../src/project/memory.js';
import { NestedMemory } from '../../../src/project/nested-memory.js';
import { findStyle, loadOutputStyles } from '../../../src/project/output-styles.js';
import type { ProjectProblem } from '../../../src/project/problems.js';
import { engineReadAccess } from '../../support/read-access.js';

let top: string;
let home: string;
let cwd: string;
beforeEach(() => {
  top = mkdtempSync(join(tmpdir(), 'agentd-memory-'));
  home = join(top, 'home');
  cwd = join(top, 'repo', 'app');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(cwd, { recursive: true });
});
afterEach(() => {
  rmSync(top, { recursive: true, force: true });
});

const load = (sources: Array<'user' | 'project' | 'local'>, extra: { maxFileBytes?: number } = {}) =>
  loadMemoryFiles({ cwd, configDir: join(home, '.claude'), homeDir: home, sources, additionalDirectories: [], readAccess: engineReadAccess({ cwd }), ...extra });

describe('@import targets', () => {
  it('finds imports after whitespace, not in code spans or fenced blocks, and drops sentence punctuation', () => {
    const text = ['See @a.md and @~/b.md.', 'Not `@c.md` nor ``x @d.md``; mail me@e.md', '```', '@f.md', '```', '~~~md', '@g.md', '~~~', '@dir/with\\ space.md', '@/abs/h.md'].join('\n');
    expect(importTargets(text)).toEqual(['a.md', '~/b.md', 'dir/with space.md', '/abs/h.md']);
  });
});

describe('memory files', () => {
  it('orders user, then every directory from the root down (CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md), imports after their file', async () => {
    writeFileSync(join(home, '.claude', 'CLAUDE.md'), 'user');
    writeFileSync(join(top, 'repo', 'CLAUDE.md'), 'repo');
    writeFileSync(join(cwd, 'CLAUDE.md'), 'app @x.md');
    writeFileSync(join(cwd, 'x.md'), 'x');
    mkdirSync(join(cwd, '.claude'));
    writeFileSync(join(cwd, '.claude', 'CLAUDE.md'), 'dot');
    writeFileSync(join(cwd, 'CLAUDE.local.md'), 'local');
    const all = await load(['user', 'project', 'local']);
    expect(all.problems).toEqual([]);
    expect(all.files.map((f) => [f.path.slice(top.length), f.kind, f.text, f.depth])).toEqual([
      ['/home/.claude/CLAUDE.md', 'user', 'user', 0],
      ['/repo/CLAUDE.md', 'project', 'repo', 0],
      ['/repo/app/CLAUDE.md', 'project', 'app @x.md', 0],
      ['/repo/app/x.md', 'project', 'x', 1],
      ['/repo/app/.claude/CLAUDE.md', 'project', 'dot', 0],
      ['/repo/app/CLAUDE.local.md', 'local', 'local', 0],
    ]);
    expect((await load(['project'])).files.map((f) => f.text)).toEqual(['repo', 'app @x.md', 'x', 'dot']);
    expect((await load([])).files).toEqual([]);
  });

  it(`follows imports ${MAX_IMPORT_DEPTH} levels deep, cuts loops, and skips targets outside the working directory`, async () => {
    const chain = Array.from({ length: 7 }, (_, i) => `d${i}.md`);
    writeFileSync(join(cwd, 'CLAUDE.md'), `@${chain[0]}\n@loop-a.md\n@../outside.md\n@missing.md\n@~/home.md`);
    chain.forEach((n, i) => writeFileSync(join(cwd, n), `${n}\n@d${i + 1}.md`));
    writeFileSync(join(cwd, 'loop-a.md'), '@loop-b.md');
    writeFileSync(join(cwd, 'loop-b.md'), '@loop-a.md');
    writeFileSync(join(top, 'repo', 'outside.md'), 'outside');
    writeFileSync(join(home, 'home.md'), 'home');
    // A user file may import anything.
    writeFileSync(join(home, '.claude', 'CLAUDE.md'), '@~/home.md');
    const { files, problems } = await load(['user', 'project']);
    expect(files.map((f) => f.path.slice(top.length))).toEqual([
      '/home/.claude/CLAUDE.md',
      '/home/home.md',
      '/repo/app/CLAUDE.md',
      '/repo/app/d0.md',
      '/repo/app/d1.md',
      '/repo/app/d2.md',
      '/repo/app/d3.md',
      '/repo/app/loop-a.md',
      '/repo/app/loop-b.md',
    ]);
    expect(problems.map((p) => [p.kind, p.file.slice(top.length), p.from?.slice(top.length)])).toEqual([
      ['import_depth', '/repo/app/d4.md', '/repo/app/d3.md'],
      ['import_loop', '/repo/app/loop-a.md', '/repo/app/loop-b.md'],
      ['import_outside', '/repo/outside.md', '/repo/app/CLAUDE.md'],
    ]);
  });

  it('imports obey the Read decision: a deny rule covers user and project imports; the host\'s allow rules do not widen a project file\'s', async () => {
    writeFileSync(join(cwd, 'secret.txt'), 'SECRET');
    writeFileSync(join(cwd, 'notes.md'), 'NOTES');
    writeFileSync(join(top, 'repo', 'outside.md'), 'OUTSIDE');
    writeFileSync(join(cwd, 'CLAUDE.md'), '@secret.txt\n@notes.md\n@../outside.md');
    writeFileSync(join(home, 'mine.md'), 'MINE');
    writeFileSync(join(home, '.claude', 'CLAUDE.md'), `@${join(cwd, 'secret.txt')}\n@~/mine.md`);
    const readAccess = engineReadAccess({ cwd, deny: ['Read(./secret.txt)'], allow: ['Read'] });
    const { files, problems } = await loadMemoryFiles({ cwd, configDir: join(home, '.claude'), homeDir: home, sources: ['user', 'project'], additionalDirectories: [], readAccess });
    expect(files.map((f) => [f.path.slice(top.length), f.kind])).toEqual([
      ['/home/.claude/CLAUDE.md', 'user'],
      ['/home/mine.md', 'user'],
      ['/repo/app/CLAUDE.md', 'project'],
      ['/repo/app/notes.md', 'project'],
    ]);
    expect(problems.map((p) => [p.kind, p.file.slice(top.length), p.from?.slice(top.length)])).toEqual([
      ['import_denied', '/repo/app/secret.txt', '/home/.claude/CLAUDE.md'],
      ['import_denied', '/repo/app/secret.txt', '/repo/app/CLAUDE.md'],
      ['import_outside', '/repo/outside.md', '/repo/app/CLAUDE.md'],
    ]);
  });

  it('cuts a huge file at the cap, skips binary and unreadable files, and says so', async () => {
    writeFileSync(join(cwd, 'CLAUDE.md'), `START${'x'.repeat(5000)}`);
    mkdirSync(join(cwd, '.claude'));
    writeFileSync(join(cwd, '.claude', 'CLAUDE.md'), Buffer.from([1, 0, 2]));
    writeFileSync(join(cwd, 'CLAUDE.local.md'), 'secret');
    chmodSync(join(cwd, 'CLAUDE.local.md'), 0o000);
    const unreadable = process.getuid?.() !== 0;
    const { files, problems } = await load(['project', 'local'], { maxFileBytes: 1000 });
    // (As root, a mode-000 file is still readable.)
    expect(files.map((f) => [f.text.length, f.truncatedFrom])).toEqual([[1000, 5005], ...(unreadable ? [] : [[6, undefined]])]);
    expect(problems.map((p) => p.kind)).toEqual(['too_large', 'binary', ...(unreadable ? ['unreadable'] : [])]);
    expect(memoryReminder(files)).toContain(`[agentd: this file is 5005 bytes; the rest was left out]`);
  });
});

describe('nested CLAUDE.md', () => {
  it('gives each subdirectory file once, for paths under the working directory only', async () => {
    mkdirSync(join(cwd, 'a', 'b'), { recursive: true });
    writeFileSync(join(cwd, 'a', 'CLAUDE.md'), 'A');
    writeFileSync(join(cwd, 'a', 'b', 'CLAUDE.local.md'), 'B');
    const problems: ProjectProblem[] = [];
    const n = new NestedMemory({ cwd, sources: ['project', 'local'], alreadyLoaded: [], maxFileBytes: 1000, onProblem: (p) => problems.push(p) });
    expect(await n.reminders(join(cwd, 'a', 'b', 'f.txt'))).toEqual([
      `Contents of ${join(cwd, 'a', 'CLAUDE.md')} (instructions for this directory):\n\nA`,
      `Contents of ${join(cwd, 'a', 'b', 'CLAUDE.local.md')} (instructions for this directory):\n\nB`,
    ]);
    expect(await n.reminders(join(cwd, 'a', 'b', 'g.txt'))).toEqual([]);
    expect(await n.reminders(join(top, 'elsewhere.txt'))).toEqual([]);
    expect(problems).toEqual([]);
    expect(NestedMemory.pathOf({ file_path: '/x' })).toBe('/x');
    expect(NestedMemory.pathOf({ command: 'ls' })).toBeUndefined();
  });
});

describe('output styles', () => {
  it('lists built-ins then user then project styles; a broken frontmatter is reported and skipped', () => {
    mkdirSync(join(home, '.claude', 'output-styles'), { recursive: true });
    mkdirSync(join(cwd, '.claude', 'output-styles'), { recursive: true });
    writeFileSync(join(home, '.claude', 'output-styles', 'mine.md'), '---\ndescription: Mine\nkeep-coding-instructions: true\n---\nBody');
    writeFileSync(join(cwd, '.claude', 'output-styles', 'broken.md'), '---\nname: Broken\nno close');
    writeFileSync(join(cwd, '.claude', 'output-styles', 'team.md'), '---\nname: "Team Style"\n---\nTeam body\n');
    const { styles, problems } = loadOutputStyles({ cwd, configDir: join(home, '.claude'), sources: ['user', 'project'] });
    expect(styles.map((s) => [s.name, s.source])).toEqual([
      ['default', 'built-in'],
      ['Proactive', 'built-in'],
      ['Concise', 'built-in'],
      ['Explanatory', 'built-in'],
      ['Learning', 'built-in'],
      ['mine', 'user'],
      ['Team Style', 'project'],
    ]);
    expect(findStyle(styles, 'mine')).toEqual({ name: 'mine', description: 'Mine', prompt: 'Body', keepCodingInstructions: true, source: 'user' });
    expect(findStyle(styles, 'team style')?.prompt).toBe('Team body');
    expect(problems.map((p) => [p.kind, p.file])).toEqual([['invalid_frontmatter', join(cwd, '.claude', 'output-styles', 'broken.md')]]);
  });

  it('reads its frontmatter with the commands and skills parser: quoted booleans, comments, colons in values, block scalars', () => {
    mkdirSync(join(cwd, '.claude', 'output-styles'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude', 'output-styles', 'a.md'),
      '---\n# the team style\nname: Reviewer\ndescription: >\n  Reviews: strictly,\n  briefly\nkeep-coding-instructions: "true"\n---\n\nReview body\n',
    );
    writeFileSync(join(cwd, '.claude', 'output-styles', 'b.md'), '---\nname:\nkeep-coding-instructions: false\n---\nB body');
    writeFileSync(join(cwd, '.claude', 'output-styles', 'c.md'), '---\nname:\n  nested: map\n---\nC body');
    const { styles, problems } = loadOutputStyles({ cwd, configDir: join(home, '.claude'), sources: ['project'] });
    expect(styles.filter((s) => s.source === 'project')).toEqual([
      { name: 'Reviewer', description: 'Reviews: strictly, briefly', prompt: 'Review body', keepCodingInstructions: true, source: 'project' },
      { name: 'b', description: '', prompt: 'B body', keepCodingInstructions: false, source: 'project' },
    ]);
    expect(problems).toEqual([
      {
        kind: 'invalid_frontmatter',
        file: join(cwd, '.claude', 'output-styles', 'c.md'),
        message: `output style ${join(cwd, '.claude', 'output-styles', 'c.md')}: line 2: nested maps are not supported in frontmatter; skipped`,
      },
    ]);
  });
});
