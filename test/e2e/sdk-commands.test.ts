// Slash commands, skills and agent definitions through the official TypeScript SDK on the scripted model: a
// project command reaches the model expanded, built-ins answer locally (no model request), supportedCommands()
// and supportedAgents() list what the project defines, and a skill's body reaches the model when the Skill tool
// is called. Broken files are reported and skipped; the session starts.
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import type { ModelRequest } from '../../src/model/types.js';
import { collect, promptChannel, query, scriptedRun } from '../support/sdk-run.js';

const SCENARIO: Scenario = {
  rules: [
    { when: { lastUserText: 'use the skill', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_skill', name: 'Skill', input: { skill: 'greet' } }] } },
    // /compact's summary request: a reply without a <summary> block would be asked for again.
    { when: { lastUserText: 'your summary will replace' }, reply: { content: [{ type: 'text', text: '<summary>Said hello; keep the plan.</summary>' }] } },
    { reply: { content: [{ type: 'text', text: 'Model answer.' }] } },
  ],
};

function project(cwd: string): void {
  const write = (rel: string, text: string): void => {
    mkdirSync(join(cwd, rel, '..'), { recursive: true });
    writeFileSync(join(cwd, rel), text);
  };
  write('.claude/commands/hello.md', '---\ndescription: Say hello\nargument-hint: <name> <other>\n---\nHello $ARGUMENTS! first=$0 second=$1\n');
  write('.claude/commands/sub/deep.md', 'Deep command body\n');
  write('.claude/commands/broken.md', '---\ndescription: [unclosed\n---\nBroken body\n');
  write('.claude/commands/withfile.md', 'Look at @notes.md please\n');
  write('notes.md', 'NOTES CONTENT\n');
  write('.claude/skills/greet/SKILL.md', '---\nname: greet\ndescription: Greets people warmly\n---\nSKILL BODY: greet everybody\n');
  write('.claude/skills/greet/reference.md', 'extra file\n');
  write('.claude/agents/reviewer.md', '---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, Bogus\nmodel: sonnet\n---\nYou review code.\n');
}

/** agentd's context blocks (environment, memory files) that come before a prompt: not what these tests are about. */
function isContextBlock(b: unknown): boolean {
  const text: unknown = typeof b === 'object' && b !== null ? Reflect.get(b, 'text') : undefined;
  return typeof text === 'string' && (text.startsWith('<system-reminder>\n# Environment\n') || text.startsWith('<system-reminder>\nInstructions from the memory files'));
}

function lastUserBlocks(r: ModelRequest): unknown {
  const last = r.messages.at(-1);
  return Array.isArray(last?.content) ? last.content.filter((b) => !isContextBlock(b)) : last?.content;
}

describe('slash commands and skills through the official SDK', () => {
  it('expands a project command, answers built-ins locally, lists commands and agents', async () => {
    const run = scriptedRun(SCENARIO);
    project(run.cwd);
    const input = promptChannel();
    let stderr = '';
    const q = query({ prompt: input, options: run.options({ settingSources: ['project'], stderr: (s) => (stderr += s), spawnClaudeCodeProcess: undefined }) });
    const commands = await q.supportedCommands();
    const agents = await q.supportedAgents();
    const results: SDKMessage[] = [];
    const all: SDKMessage[] = [];
    const done = collect(q, (m) => {
      all.push(m);
      if (m.type !== 'result') return;
      results.push(m);
      if (results.length === 5) input.close();
    });
    for (const p of ['/hello World Two', '/cost', '/context', '/compact keep the plan', '/sub:deep']) input.push(p);
    await done;

    expect(commands.filter((c) => !c.builtin)).toEqual([
      { name: 'greet', description: 'Greets people warmly (project)', argumentHint: '' },
      { name: 'hello', description: 'Say hello (project)', argumentHint: '<name> <other>' },
      { name: 'sub:deep', description: 'Deep command body (project)', argumentHint: '' },
      { name: 'withfile', description: 'Look at @notes.md please (project)', argumentHint: '' },
    ]);
    expect(commands.filter((c) => c.builtin).map((c) => c.name)).toEqual(['clear', 'compact', 'context', 'usage', 'model', 'mcp', 'reload-skills', 'init']);
    expect(commands.find((c) => c.name === 'usage')).toEqual({ name: 'usage', description: 'Show the cost and token usage of this session', argumentHint: '', aliases: ['cost', 'stats'], builtin: true });
    expect(agents).toEqual([
      { name: 'general-purpose', description: expect.stringContaining('General-purpose agent') },
      { name: 'reviewer', description: 'Reviews code', model: 'sonnet' },
    ]);
    expect(stderr).toContain('broken.md');
    expect(stderr).toContain('unknown tool \\"Bogus\\"');
    const notices = all.filter((m) => m.type === 'system' && m.subtype === ('agentd_warning' as never));
    expect(notices.length).toBeGreaterThanOrEqual(2);

    // The two commands that expand reached the model, and /compact ran the compaction (its summarization
    // request carries the instructions); /cost and /context made no request.
    const reqs = run.requests();
    expect(reqs).toHaveLength(3);
    expect(lastUserBlocks(reqs[0] as ModelRequest)).toEqual([
      { type: 'text', text: '<command-message>hello</command-message>\n<command-name>/hello</command-name>\n<command-args>World Two</command-args>\n' },
      { type: 'text', text: 'Hello World Two! first=World second=Two\n', cache_control: { type: 'ephemeral' } },
    ]);
    expect(JSON.stringify(reqs[1])).toContain('keep the plan');
    const deep = JSON.stringify(lastUserBlocks(reqs[2] as ModelRequest));
    expect(deep).toContain('<command-name>/sub:deep</command-name>');
    expect(deep).toContain('Deep command body');
    expect(JSON.stringify(reqs)).not.toContain('/cost');

    const summary = results.map((r) => (r.type === 'result' ? { subtype: r.subtype, local: (r as { local_command?: string }).local_command ?? null, turns: r.num_turns } : null));
    expect([summary[0], summary[1], summary[2], summary[4]]).toEqual([
      { subtype: 'success', local: null, turns: 1 },
      { subtype: 'success', local: 'cost', turns: 0 },
      { subtype: 'success', local: 'context', turns: 0 },
      { subtype: 'success', local: null, turns: 1 },
    ]);
    expect(summary[3]?.subtype).toBe('success');
    const synthetic = all.filter((m) => m.type === 'assistant' && m.message.model === '<synthetic>').map((m) => (m.type === 'assistant' ? JSON.stringify(m.message.content) : ''));
    expect(synthetic[0]).toContain('Total cost');
    expect(synthetic[1]).toContain('## Context Usage');
  }, 60_000);

  it('offers the Skill tool; its call brings the skill body to the model', async () => {
    const run = scriptedRun(SCENARIO);
    project(run.cwd);
    const msgs = await collect(query({ prompt: 'use the skill', options: run.options({ settingSources: ['project'] }) }));
    expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Model answer.' });
    const reqs = run.requests();
    expect(reqs).toHaveLength(2);
    const skillTool = reqs[0]?.tools?.find((t) => t.name === 'Skill');
    expect(skillTool && 'description' in skillTool ? skillTool.description : undefined).toContain('- greet: Greets people warmly (project)');
    // Progressive disclosure: the body is not in the first request.
    expect(JSON.stringify(reqs[0])).not.toContain('SKILL BODY');
    const result = (reqs[1]?.messages.at(-1)?.content as Array<{ type: string; content?: unknown }>).find((b) => b.type === 'tool_result');
    expect(result?.content).toEqual([
      { type: 'text', text: 'Launching skill: greet' },
      { type: 'text', text: `Base directory for this skill: ${join(run.cwd, '.claude/skills/greet')}\n\nSKILL BODY: greet everybody\n` },
    ]);
  }, 60_000);

  it('an unknown /word reaches the model with a reminder; @file contents are attached; settingSources gates project files', async () => {
    const run = scriptedRun(SCENARIO);
    project(run.cwd);
    const input = promptChannel();
    let n = 0;
    const q = query({ prompt: input, options: run.options({ settingSources: ['project'] }) });
    const done = collect(q, (m) => {
      if (m.type === 'result' && ++n === 2) input.close();
    });
    input.push('/frobnicate now');
    input.push('/withfile');
    await done;
    const [unknown, withFile] = run.requests();
    const u = lastUserBlocks(unknown as ModelRequest) as Array<{ text: string }>;
    expect(u[0]?.text).toContain('no command of that name');
    expect(u.at(-1)?.text).toBe('/frobnicate now');
    const w = lastUserBlocks(withFile as ModelRequest) as Array<{ text: string }>;
    expect(w[0]?.text).toContain('1\tNOTES CONTENT');

    const none = scriptedRun(SCENARIO);
    project(none.cwd);
    const q2 = query({ prompt: 'hi', options: none.options({ settingSources: [] }) });
    const cmds = await q2.supportedCommands();
    await collect(q2);
    expect(cmds.filter((c) => !c.builtin)).toEqual([]);
  }, 60_000);

  it('`!` shell lines run through the permission engine (allowed by a rule; refused fails closed); /clear; a plugin folder', async () => {
    const run = scriptedRun(SCENARIO);
    project(run.cwd);
    mkdirSync(join(run.cwd, '.claude/commands'), { recursive: true });
    writeFileSync(join(run.cwd, '.claude/commands/shell.md'), 'Output: !`echo hi-from-shell`\n');
    writeFileSync(join(run.cwd, '.claude/commands/unsafe.md'), 'Made: !`touch made-by-command.txt`\n');
    const plugin = join(run.cwd, '..', `plugin-${Date.now()}`);
    mkdirSync(join(plugin, 'commands'), { recursive: true });
    mkdirSync(join(plugin, '.claude-plugin'), { recursive: true });
    writeFileSync(join(plugin, '.claude-plugin', 'plugin.json'), '{"name": "kit"}');
    writeFileSync(join(plugin, 'commands', 'p.md'), '---\ndescription: From the plugin\n---\nPlugin body\n');
    const input = promptChannel();
    const all: SDKMessage[] = [];
    let n = 0;
    const q = query({ prompt: input, options: run.options({ settingSources: ['project'], allowedTools: ['Bash(echo:*)'], plugins: [{ type: 'local', path: plugin }] }) });
    const commands = await q.supportedCommands();
    const done = collect(q, (m) => {
      all.push(m);
      if (m.type === 'result' && ++n === 5) input.close();
    });
    for (const p of ['/shell', '/unsafe', '/clear', 'after clear', '/kit:p']) input.push(p);
    await done;
    expect(commands.find((c) => c.name === 'kit:p')).toEqual({ name: 'kit:p', description: 'From the plugin (plugin:kit)', argumentHint: '' });
    const reqs = run.requests();
    expect(reqs).toHaveLength(3);
    expect(JSON.stringify(lastUserBlocks(reqs[0] as ModelRequest))).toContain('Output: hi-from-shell');
    // After /clear the next request starts from nothing.
    expect(reqs[1]?.messages).toHaveLength(1);
    expect(lastUserBlocks(reqs[1] as ModelRequest)).toEqual([{ type: 'text', text: 'after clear', cache_control: { type: 'ephemeral' } }]);
    expect(JSON.stringify(lastUserBlocks(reqs[2] as ModelRequest))).toContain('Plugin body');
    const results = all.filter((m) => m.type === 'result');
    expect(results[1]).toMatchObject({ subtype: 'error_during_execution', is_error: true, local_command: 'unsafe' });
    expect(JSON.stringify(results[1])).toContain('did not run');
    expect(results[2]).toMatchObject({ subtype: 'success', local_command: 'clear', result: '' });
    expect(all.filter((m) => m.type === ('conversation_reset' as never))).toHaveLength(1);
    expect(existsSync(join(run.cwd, 'made-by-command.txt'))).toBe(false);
  }, 60_000);

  it('reloadSkills() picks up a skill written mid-session and pushes commands_changed', async () => {
    const run = scriptedRun(SCENARIO);
    project(run.cwd);
    const input = promptChannel();
    const all: SDKMessage[] = [];
    const q = query({ prompt: input, options: run.options({ settingSources: ['project'] }) });
    const done = collect(q, (m) => {
      all.push(m);
      if (m.type === 'result') input.close();
    });
    expect((await q.supportedCommands()).some((c) => c.name === 'late')).toBe(false);
    mkdirSync(join(run.cwd, '.claude/skills/late'), { recursive: true });
    writeFileSync(join(run.cwd, '.claude/skills/late/SKILL.md'), '---\nname: late\ndescription: Written later\n---\nLATE\n');
    const reloaded = await q.reloadSkills();
    expect(reloaded.skills.map((s) => s.name)).toEqual(['greet', 'late']);
    input.push('/late');
    await done;
    const changed = all.find((m) => m.type === 'system' && m.subtype === 'commands_changed');
    expect(changed && 'commands' in changed ? changed.commands.find((c) => c.name === 'late') : undefined).toEqual({ name: 'late', description: 'Written later (project)', argumentHint: '' });
    expect(JSON.stringify(run.requests()[0]?.messages.at(-1))).toContain('LATE');
  }, 60_000);

  it('a Skill(name) deny rule refuses that skill; the SDK skills option hides the others', async () => {
    const run = scriptedRun(SCENARIO);
    project(run.cwd);
    mkdirSync(join(run.cwd, '.claude/skills/other'), { recursive: true });
    writeFileSync(join(run.cwd, '.claude/skills/other/SKILL.md'), '---\nname: other\ndescription: Another skill\n---\nOTHER\n');
    const msgs = await collect(query({ prompt: 'use the skill', options: run.options({ settingSources: ['project'], disallowedTools: ['Skill(greet)'] }) }));
    const denied = msgs.flatMap((m) => (m.type === 'user' && Array.isArray(m.message.content) ? m.message.content : [])).find((b) => b.type === 'tool_result');
    expect(denied).toMatchObject({ tool_use_id: 'toolu_skill', is_error: true });
    expect(JSON.stringify(run.requests()[1]?.messages)).not.toContain('SKILL BODY');

    const filtered = scriptedRun(SCENARIO);
    project(filtered.cwd);
    mkdirSync(join(filtered.cwd, '.claude/skills/other'), { recursive: true });
    writeFileSync(join(filtered.cwd, '.claude/skills/other/SKILL.md'), '---\nname: other\ndescription: Another skill\n---\nOTHER\n');
    await collect(query({ prompt: 'hello', options: filtered.options({ settingSources: ['project'], skills: ['other'] }) }));
    const skill = filtered.requests()[0]?.tools?.find((t) => t.name === 'Skill');
    const desc = skill && 'description' in skill ? skill.description : undefined;
    expect(desc).toContain('- other: Another skill (project)');
    expect(desc).not.toContain('greet');
  }, 60_000);

  it("pluginDelivery: 'initialize': the plugin's commands, skills, agents and command hooks load; plugins_applied", async () => {
    const run = scriptedRun(SCENARIO);
    const plugin = join(run.cwd, '..', `plugin-init-${Date.now()}`);
    mkdirSync(join(plugin, 'commands'), { recursive: true });
    mkdirSync(join(plugin, 'skills', 'tidy'), { recursive: true });
    mkdirSync(join(plugin, 'agents'), { recursive: true });
    writeFileSync(join(plugin, 'commands', 'go.md'), 'Go body\n');
    writeFileSync(join(plugin, 'skills', 'tidy', 'SKILL.md'), '---\nname: tidy\ndescription: Tidies\n---\nTIDY\n');
    writeFileSync(join(plugin, 'agents', 'helper.md'), '---\nname: helper\ndescription: Plugin helper\n---\nHelp.\n');
    mkdirSync(join(plugin, 'hooks'), { recursive: true });
    writeFileSync(
      join(plugin, 'hooks', 'hooks.json'),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo ran > "${CLAUDE_PLUGIN_ROOT}/hook-ran.txt"' }] }] } }),
    );
    const q = query({ prompt: 'hello', options: run.options({ settingSources: [], plugins: [{ type: 'local', path: plugin }], pluginDelivery: 'initialize' }) });
    const init = await q.initializationResult();
    await collect(q);
    const name = plugin.split('/').at(-1) as string;
    expect((init as { plugins_applied?: boolean }).plugins_applied).toBe(true);
    expect(init.commands.filter((c) => !c.builtin).map((c) => c.name)).toEqual([`${name}:tidy`, `${name}:go`]);
    expect(init.agents.map((a) => a.name)).toEqual(['general-purpose', `${name}:helper`]);
    // The plugin's command hook ran, with ${CLAUDE_PLUGIN_ROOT} as its folder.
    expect(readFileSync(join(plugin, 'hook-ran.txt'), 'utf8')).toBe('ran\n');
  }, 60_000);
});
