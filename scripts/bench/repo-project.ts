// The project of init-instructions' repository row (issue 22): a repository with 20 files of each kind a clone
// brings — commands, skills (each with a file beside SKILL.md), agents, output styles, rules, CLAUDE.md imports —
// and a settings file with 20 hooks and 20 env variables and a .mcp.json with 20 servers, none of them trusted
// (the bench's HOME holds no trust record). What start-up costs is the scan of those files and the trust decision
// while `initialize` is answered: the memory files load after the answer, and untrusted servers never start.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const N = 20;

export function writeRepoProject(root: string): string {
  const cwd = join(root, 'repo');
  const put = (rel: string, text: string): void => {
    mkdirSync(join(cwd, rel, '..'), { recursive: true });
    writeFileSync(join(cwd, rel), text);
  };
  mkdirSync(join(cwd, '.git'), { recursive: true });
  const imports: string[] = [];
  for (let i = 0; i < N; i++) {
    put(`.claude/commands/cmd${i}.md`, `---\ndescription: Command ${i}\nargument-hint: <target>\n---\nDo task ${i} for $ARGUMENTS.\n`);
    put(`.claude/skills/skill-${i}/SKILL.md`, `---\nname: skill-${i}\ndescription: Skill ${i}\n---\n${'Skill instructions. '.repeat(50)}\n`);
    put(`.claude/skills/skill-${i}/reference.md`, 'Reference material.\n'.repeat(20));
    put(`.claude/agents/agent${i}.md`, `---\nname: agent${i}\ndescription: Agent ${i}\ntools: Read, Grep\n---\nYou review part ${i}.\n`);
    put(`.claude/output-styles/style${i}.md`, `---\nname: Style ${i}\ndescription: Style ${i}\n---\nAnswer in style ${i}.\n`);
    put(`.claude/rules/rule${i}.md`, i % 2 ? `---\npaths: src/part${i}/**\n---\nRule ${i}.\n` : `Rule ${i}.\n`);
    put(`docs/note${i}.md`, `Note ${i}.\n`);
    imports.push(`@docs/note${i}.md`);
  }
  put('CLAUDE.md', `# Repository\n\n${imports.join('\n')}\n`);
  const hooks = Object.fromEntries(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop'].map((e, k) => [e, Array.from({ length: N / 4 }, (_, j) => ({ matcher: '*', hooks: [{ type: 'command', command: `true hook-${k}-${j}` }] }))]));
  const env = Object.fromEntries(Array.from({ length: N }, (_, i) => [i % 4 === 0 ? `GIT_VAR_${i}` : `APP_VAR_${i}`, `value-${i}`]));
  put('.claude/settings.json', JSON.stringify({ hooks, env, permissions: { deny: ['Read(./secrets/**)'] } }));
  put('.mcp.json', JSON.stringify({ mcpServers: Object.fromEntries(Array.from({ length: N }, (_, i) => [`srv${i}`, { type: 'http', url: `http://127.0.0.1:9/mcp${i}`, headers: { Authorization: 'Bearer ${ANTHROPIC_API_KEY}' } }])) }));
  return cwd;
}
