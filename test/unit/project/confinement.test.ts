// A repository's files are read as the files they claim to be (src/project/files.ts Confinement): a command, agent,
// skill (folder or SKILL.md) or output style of the project that is a link out of the repository and the user's
// Claude folder is skipped with a warning; one that stays inside (or leads into the user's Claude folder) is read;
// the user's own files may lead anywhere.
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgents, scanProject, skillBody } from '../../../src/project/index.js';
import { loadOutputStyles } from '../../../src/project/output-styles.js';
import { tempDir } from '../../support/daemon.js';

function world() {
  const top = realpathSync(tempDir('agentd-confine-'));
  const repo = join(top, 'repo');
  const cwd = join(repo, 'app');
  const configDir = join(top, 'home', '.claude');
  const outside = join(top, 'outside');
  for (const d of [join(repo, '.git'), join(cwd, '.claude'), configDir, outside]) mkdirSync(d, { recursive: true });
  const put = (path: string, text: string): string => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  const link = (target: string, path: string): void => {
    mkdirSync(join(path, '..'), { recursive: true });
    symlinkSync(target, path);
  };
  return { top, repo, cwd, configDir, outside, put, link };
}

describe('project files that lead out of the repository', () => {
  it('commands, skills and agents: links out are skipped with a warning; links inside the repository or into the Claude folder are read', () => {
    const w = world();
    const dot = join(w.cwd, '.claude');
    w.link(w.put(join(w.outside, 'cmd.md'), 'OUTSIDE'), join(dot, 'commands', 'leak.md'));
    w.link(w.put(join(w.repo, 'docs', 'cmd.md'), 'INSIDE'), join(dot, 'commands', 'ok.md'));
    w.link(w.put(join(w.configDir, 'shared.md'), 'MINE'), join(dot, 'commands', 'mine.md'));
    w.put(join(w.outside, 'grp', 'deep.md'), 'OUTSIDE-DEEP');
    w.link(join(w.outside, 'grp'), join(dot, 'commands', 'grp'));
    w.put(join(w.outside, 'skill', 'SKILL.md'), '---\nname: out-dir\ndescription: d\n---\nx');
    w.link(join(w.outside, 'skill'), join(dot, 'skills', 'out-dir'));
    w.link(w.put(join(w.outside, 'S.md'), '---\nname: out-file\ndescription: d\n---\nx'), join(dot, 'skills', 'out-file', 'SKILL.md'));
    w.put(join(dot, 'skills', 'fine', 'SKILL.md'), '---\nname: fine\ndescription: d\n---\nFINE');
    w.link(w.put(join(w.outside, 'a.md'), '---\nname: spy\ndescription: d\n---\np'), join(dot, 'agents', 'spy.md'));
    w.put(join(dot, 'agents', 'good.md'), '---\nname: good\ndescription: d\n---\np');
    const c = scanProject({ cwd: w.cwd, configDir: w.configDir, settingSources: ['project'], plugins: [] });
    expect(c.commands.map((x) => [x.name, x.body])).toEqual([
      ['mine', 'MINE'],
      ['ok', 'INSIDE'],
    ]);
    expect(c.skills.map((s) => s.name)).toEqual(['fine']);
    expect(skillBody(c.skills[0] as (typeof c.skills)[number])).toBe('FINE');
    const a = loadAgents(c, { flagJson: undefined, sdkAgents: undefined, isKnownTool: () => true });
    expect(a.agents.filter((x) => x.source === 'project').map((x) => x.name)).toEqual(['good']);
    expect([...c.warnings, ...a.warnings].map((x) => [x.file.slice(w.top.length), x.message.replace(w.top, '')])).toEqual([
      ['/repo/app/.claude/commands/grp/deep.md', 'command skipped: it is a link to /outside/grp/deep.md, outside the project and your Claude folder'],
      ['/repo/app/.claude/commands/leak.md', 'command skipped: it is a link to /outside/cmd.md, outside the project and your Claude folder'],
      ['/repo/app/.claude/skills/out-dir', 'skill skipped: its folder is a link to /outside/skill, outside the project and your Claude folder'],
      ['/repo/app/.claude/skills/out-file/SKILL.md', 'skill skipped: SKILL.md is a link to /outside/S.md, outside the project and your Claude folder'],
      ['/repo/app/.claude/agents/spy.md', 'agent skipped: it is a link to /outside/a.md, outside the project and your Claude folder'],
    ]);
  });

  it('a .claude/commands folder that is itself a link out takes every command with it; the user\'s own folder may lead anywhere', () => {
    const w = world();
    w.put(join(w.outside, 'cmds', 'x.md'), 'X');
    w.link(join(w.outside, 'cmds'), join(w.cwd, '.claude', 'commands'));
    w.link(join(w.outside, 'cmds'), join(w.configDir, 'commands'));
    const c = scanProject({ cwd: w.cwd, configDir: w.configDir, settingSources: ['project', 'user'], plugins: [] });
    expect(c.commands.map((x) => [x.name, x.source])).toEqual([['x', 'user']]);
    expect(c.warnings.map((x) => x.message.replace(w.top, ''))).toEqual(['command folder skipped: it leads to /outside/cmds, outside the project and your Claude folder']);
  });

  it('output styles: a project style that is a link out is skipped with a problem', () => {
    const w = world();
    w.link(w.put(join(w.outside, 's.md'), '---\nname: Leaky\n---\nOUT'), join(w.cwd, '.claude', 'output-styles', 'leaky.md'));
    w.put(join(w.cwd, '.claude', 'output-styles', 'plain.md'), '---\nname: Plain\n---\nIN');
    const r = loadOutputStyles({ cwd: w.cwd, configDir: w.configDir, sources: ['project'] });
    expect(r.styles.filter((s) => s.source === 'project').map((s) => s.name)).toEqual(['Plain']);
    expect(r.problems.map((p) => [p.kind, p.message.replaceAll(w.top, '')])).toEqual([
      ['outside_link', 'output style /repo/app/.claude/output-styles/leaky.md is a link to /outside/s.md, outside the project and your Claude folder; skipped'],
    ]);
  });
});
