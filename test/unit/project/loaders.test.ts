// The project loaders: frontmatter subset, commands (namespaces, defaults, broken files), skills (folder-name
// fallback, filter), agents (sources, precedence, unknown tools dropped, bad JSON), plugins (manifest names).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../../src/project/frontmatter.js';
import { type ProjectWarning, filterSkills, loadAgents, scanProject } from '../../../src/project/index.js';
import { childPath } from '../../../src/project/files.js';
import { substituteArguments } from '../../../src/commands/expand.js';
import { parseSlash } from '../../../src/commands/slash.js';
import { tempDir } from '../../support/daemon.js';

function tree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

describe('frontmatter', () => {
  it('parses the YAML subset Claude Code files use', () => {
    expect(parseFrontmatter('---\na: plain text\nb: "quoted: yes"\nc: \'single\'\nd: [x, "y, z"]\ne:\n  - one\n  - two\nf: true\ng: 3\nh: |\n  line 1\n  line 2\n# comment\n---\nbody\n')).toEqual({
      ok: true,
      hasFrontmatter: true,
      body: 'body\n',
      data: { a: 'plain text', b: 'quoted: yes', c: 'single', d: ['x', 'y, z'], e: ['one', 'two'], f: true, g: 3, h: 'line 1\nline 2' },
    });
    expect(parseFrontmatter('no fence\n')).toEqual({ ok: true, hasFrontmatter: false, body: 'no fence\n', data: {} });
  });

  it('rejects what it cannot read', () => {
    expect(parseFrontmatter('---\na: [open\n---\n')).toEqual({ ok: false, error: 'line 1: unterminated inline list' });
    expect(parseFrontmatter('---\na: b\n')).toEqual({ ok: false, error: 'frontmatter is not closed by a --- line' });
    expect(parseFrontmatter('---\na:\n  b: c\n---\n')).toEqual({ ok: false, error: 'line 2: nested maps are not supported in frontmatter' });
    expect(parseFrontmatter('---\njust words\n---\n')).toEqual({ ok: false, error: 'line 1: expected "key: value"' });
  });
});

describe('slash parsing and arguments', () => {
  it('recognises commands, not paths', () => {
    expect(parseSlash('/hello  World  Two ')).toEqual({ name: 'hello', args: 'World  Two' });
    expect(parseSlash('  /sub:deep')).toEqual({ name: 'sub:deep', args: '' });
    expect(parseSlash('/tmp/file.txt is broken')).toBeUndefined();
    expect(parseSlash('hello /x')).toBeUndefined();
  });

  it('fills $ARGUMENTS and 0-based $N; appends the arguments when the body names none', () => {
    expect(substituteArguments('A=$ARGUMENTS 0=$0 1=$1 9=$9', 'one "two three"')).toBe('A=one "two three" 0=one 1=two three 9=$9');
    expect(substituteArguments('Body\n', 'x y')).toBe('Body\n\nARGUMENTS: x y\n');
    expect(substituteArguments('Body\n', '')).toBe('Body\n');
  });
});

describe('scanProject', () => {
  it('reads project, user and plugin commands and skills; reports and skips broken files', () => {
    const cwd = tempDir('agentd-proj-');
    const home = tempDir('agentd-cfg-');
    const plugin = tempDir('agentd-plugin-');
    tree(cwd, {
      '.claude/commands/a.md': '---\ndescription: Project A\nallowed-tools: Bash(git:*), Read\nmodel: haiku\ndisable-model-invocation: true\n---\nbody A\n',
      '.claude/commands/ns/deep/b.md': '# Heading line\nmore\n',
      '.claude/commands/bad.md': '---\ndescription: "unterminated\n---\nx\n',
      '.claude/skills/named/SKILL.md': '---\nname: pdf\ndescription: PDF work\n---\nPDF BODY\n',
      '.claude/skills/folder-only/SKILL.md': '---\ndescription: no name\n---\nbody\n',
      '.claude/skills/empty/README.md': 'no skill file\n',
    });
    tree(home, { 'commands/a.md': 'user A\n', 'commands/u.md': 'user only\n' });
    tree(plugin, { '.claude-plugin/plugin.json': '{"name":"tools-kit"}', 'commands/p.md': 'plugin command\n', 'skills/s/SKILL.md': '---\nname: s\ndescription: plugin skill\n---\nS\n' });
    const c = scanProject({ cwd, configDir: home, settingSources: ['user', 'project'], plugins: [{ path: plugin, skipMcp: false }] });
    expect(c.commands.map((x) => [x.name, x.description, x.source])).toEqual([
      ['tools-kit:p', 'plugin command (plugin:tools-kit)', 'plugin'],
      ['a', 'user A (user)', 'user'],
      ['u', 'user only (user)', 'user'],
      ['a', 'Project A (project)', 'project'],
      ['ns:deep:b', 'Heading line (project)', 'project'],
    ]);
    expect(c.commands[3]).toMatchObject({ allowedTools: ['Bash(git:*)', 'Read'], model: 'haiku', disableModelInvocation: true, body: 'body A\n' });
    expect(c.skills.map((s) => [s.name, s.description])).toEqual([
      ['tools-kit:s', 'plugin skill (plugin:tools-kit)'],
      ['folder-only', 'no name (project)'],
      ['pdf', 'PDF work (project)'],
    ]);
    expect(c.plugins).toEqual([{ name: 'tools-kit', path: plugin }]);
    expect(c.warnings.map((w) => [w.file.slice(cwd.length), w.message])).toEqual([
      ['/.claude/commands/bad.md', 'command skipped: broken frontmatter (line 1: unterminated double-quoted string)'],
      ['/.claude/skills/empty/SKILL.md', 'skill folder without a readable SKILL.md skipped'],
      ['/.claude/skills/folder-only/SKILL.md', 'skill has no name in its frontmatter; using the folder name "folder-only"'],
    ]);
    // The paths are built by concatenation (childPath), not path.join: the same strings all the same.
    expect([c.commands[4]?.file, c.skills[2]?.file, c.skills[2]?.dir]).toEqual([
      join(cwd, '.claude/commands/ns/deep/b.md'),
      join(cwd, '.claude/skills/named/SKILL.md'),
      join(cwd, '.claude/skills/named'),
    ]);
    expect(filterSkills(c.skills, ['pdf', 's']).map((s) => s.name)).toEqual(['tools-kit:s', 'pdf']);
    // settingSources gates the project and user folders; plugins are named explicitly and always read.
    const none = scanProject({ cwd, configDir: home, settingSources: [], plugins: [] });
    expect([none.commands, none.skills, none.warnings]).toEqual([[], [], []]);
  });
});

describe('childPath', () => {
  it('joins a normalised directory and one entry name as path.join does', () => {
    for (const [dir, name] of [['/a/b', 'c.md'], ['/', 'etc'], ['/a/b/', 'SKILL.md'], ['/x', '.hidden']] as const) expect(childPath(dir, name)).toBe(join(dir, name));
  });
});

describe('loadAgentDefinitions', () => {
  it('merges built-in, files, --agents and initialize.agents by precedence; drops unknown tools; skips bad ones', () => {
    const cwd = tempDir('agentd-proj-');
    const home = tempDir('agentd-cfg-');
    tree(cwd, {
      '.claude/agents/reviewer.md': '---\nname: reviewer\ndescription: Project reviewer\ntools: Read, Grep, Bogus\nmodel: sonnet\nmaxTurns: 5\n---\nYou review.\n',
      '.claude/agents/broken.md': '---\nname: [x\n---\nprompt\n',
      '.claude/agents/nodesc.md': '---\nname: nodesc\n---\nprompt\n',
    });
    tree(home, { 'agents/reviewer.md': '---\nname: reviewer\ndescription: User reviewer\n---\nUser prompt.\n', 'agents/helper.md': '---\nname: helper\ndescription: Helps\n---\nHelp.\n' });
    const catalog = scanProject({ cwd, configDir: home, settingSources: ['user', 'project'], plugins: [] });
    const { agents, warnings } = loadAgents(catalog, {
      flagJson: '{"flagged": {"description": "From the flag", "prompt": "Flag prompt", "tools": ["Read"]}, "helper": {"description": "Overridden", "prompt": "P"}}',
      sdkAgents: { sdk: { description: 'From the SDK', prompt: 'SDK prompt', disallowedTools: ['Bash'], background: true } },
      isKnownTool: (n) => ['Read', 'Grep', 'Bash'].includes(n),
    });
    expect(agents.map((a) => [a.name, a.description, a.source])).toEqual([
      ['general-purpose', expect.stringContaining('General-purpose'), 'built-in'],
      ['helper', 'Overridden', 'flag'],
      ['reviewer', 'Project reviewer', 'project'],
      ['flagged', 'From the flag', 'flag'],
      ['sdk', 'From the SDK', 'sdk'],
    ]);
    expect(agents[2]).toEqual({
      name: 'reviewer',
      description: 'Project reviewer',
      prompt: 'You review.',
      tools: ['Read', 'Grep'],
      disallowedTools: [],
      model: 'sonnet',
      maxTurns: 5,
      background: false,
      skills: [],
      source: 'project',
      file: join(cwd, '.claude/agents/reviewer.md'),
    });
    expect(agents[4]).toMatchObject({ disallowedTools: ['Bash'], background: true, tools: undefined, file: undefined });
    expect(warnings.map((w: ProjectWarning) => w.message)).toEqual([
      'agent skipped: broken frontmatter (line 1: unterminated inline list)',
      'agent "nodesc" skipped: it has no description',
      'agent "reviewer": unknown tool "Bogus" in tools dropped',
    ]);
    const bad = loadAgents(catalog, { flagJson: '{not json', sdkAgents: undefined, isKnownTool: () => true });
    expect(bad.warnings.at(-1)?.message).toMatch(/^not valid JSON, ignored/);
  });
});

describe('loadPluginHooks', () => {
  it('reads command hooks, puts in the plugin folder, and reports what it skips', async () => {
    const { loadPluginHooks } = await import('../../../src/project/index.js');
    const dir = tempDir('agentd-plugin-');
    tree(dir, {
      'hooks/hooks.json': JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/check.sh', timeout: 5 }, { type: 'prompt', prompt: 'x' }] }],
          Stop: 'not a list',
        },
      }),
    });
    const warnings: ProjectWarning[] = [];
    expect(loadPluginHooks({ name: 'kit', path: dir }, warnings)).toEqual([{ event: 'PreToolUse', matcher: 'Bash', command: `${dir}/check.sh`, timeoutSec: 5, source: 'plugin:kit' }]);
    expect(warnings.map((w) => w.message)).toEqual(['a PreToolUse hook skipped: only command hooks are supported', 'plugin hooks for Stop skipped: not a list of matchers']);
    const bad = tempDir('agentd-plugin-');
    tree(bad, { 'hooks/hooks.json': '{nope' });
    const w2: ProjectWarning[] = [];
    expect(loadPluginHooks({ name: 'bad', path: bad }, w2)).toEqual([]);
    expect(w2[0]?.message).toMatch(/^plugin hooks skipped: not valid JSON/);
  });
});
