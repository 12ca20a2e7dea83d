// Deny rules and rewritten inputs through the official SDK (issue 21, part 7), as measured on Claude Code 2.1.330
// (test/measure/deny-removes-tool.measure.ts): a whole-tool deny from any layer takes the tool out of every
// request (main loop and subagents) and out of system/init.tools, and a call of it is answered "No such tool
// available"; a host's or a hook's updatedInput is held to the tool's schema, its own checks and the deny rules.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HookCallback, Options, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { type ScriptedRun, collect, promptChannel, query, scriptedRun, toolResults } from '../support/sdk-run.js';

const allow = async (_n: string, input: Record<string, unknown>) => ({ behavior: 'allow' as const, updatedInput: input });
const HELPER = { description: 'Helps', prompt: 'You are the helper agent.' };
const WITHHELD = (tool: string): string => `<tool_use_error>Error: No such tool available: ${tool}. ${tool} is disabled for this session, in subagents as well as here.</tool_use_error>`;

/** The main loop calls `tool` and the helper agent, which calls `tool` too. */
function callsEverywhere(tool: string, input: Record<string, unknown>): Scenario {
  return {
    rules: [
      { when: { system: 'helper agent', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_sub', name: tool, input }] } },
      { when: { system: 'helper agent', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'sub done' }] } },
      {
        when: { lastUserText: 'go', hasToolResults: false },
        reply: {
          content: [
            { type: 'tool_use', id: 'toolu_main', name: tool, input },
            { type: 'tool_use', id: 'toolu_agent', name: 'Agent', input: { description: 'help', prompt: 'help out', subagent_type: 'helper' } },
          ],
        },
      },
      { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
    ],
  };
}

const toolNames = (run: ScriptedRun): string[][] => run.requests().map((r) => (r.tools ?? []).map((t) => t.name));
const initTools = (msgs: readonly SDKMessage[]): string[] => msgs.flatMap((m) => (m.type === 'system' && m.subtype === 'init' ? [m.tools] : [])).flat();

async function runDenying(tool: string, input: Record<string, unknown>, extra: Partial<Options>, prepare?: (run: ScriptedRun) => void): Promise<{ run: ScriptedRun; msgs: SDKMessage[] }> {
  const run = scriptedRun(callsEverywhere(tool, input));
  prepare?.(run);
  const msgs = await collect(query({ prompt: 'go', options: run.options({ agents: { helper: HELPER }, canUseTool: allow, ...extra }) }));
  return { run, msgs };
}

describe('a whole-tool deny takes the tool out of the session', () => {
  it('managedSettings deny of Bash: no request offers it (main loop or subagent), system/init leaves it out, a call gets Claude Code’s answer', async () => {
    const bash = { command: 'echo hi', description: 'echo' };
    const control = await runDenying('Bash', bash, {});
    const denied = await runDenying('Bash', bash, { managedSettings: { permissions: { deny: ['Bash'] } } });
    const without = (names: string[]): string[] => names.filter((n) => n !== 'Bash');
    // Main, subagent, subagent again, main again: the same requests, each without Bash.
    expect(toolNames(control.run)).toHaveLength(4);
    expect(toolNames(denied.run)).toEqual(toolNames(control.run).map(without));
    expect(toolNames(control.run)[0]).toContain('Bash');
    expect(initTools(denied.msgs)).toEqual(without(initTools(control.msgs)));
    expect(initTools(control.msgs)).toContain('Bash');
    expect(toolResults(denied.msgs)).toEqual([
      ['toolu_main', true, WITHHELD('Bash')],
      ['toolu_sub', true, WITHHELD('Bash')],
      ['toolu_agent', false, 'sub done'],
    ]);
    // Not a permission decision: nothing in permission_denials (as Claude Code).
    expect(denied.msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'success', permission_denials: [] });
  });

  const layers: Array<[string, string, Partial<Options>, ((run: ScriptedRun) => void) | undefined]> = [
    ['the managed policy file', 'Bash', {}, (run) => {
      const dir = run.env['AGENTD_MANAGED_SETTINGS_DIR'] as string;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'managed-settings.json'), JSON.stringify({ permissions: { deny: ['Bash'] } }));
    }],
    ['the user settings', 'Bash', {}, (run) => {
      mkdirSync(join(run.home, '.claude'), { recursive: true });
      writeFileSync(join(run.home, '.claude/settings.json'), JSON.stringify({ permissions: { deny: ['Bash'] } }));
    }],
    ['the project settings (a repository may restrict)', 'Bash', {}, (run) => {
      mkdirSync(join(run.cwd, '.claude'), { recursive: true });
      writeFileSync(join(run.cwd, '.claude/settings.json'), JSON.stringify({ permissions: { deny: ['Bash'] } }));
    }],
    ['--settings', 'Bash', { settings: { permissions: { deny: ['Bash(*)'] } } }, undefined],
    ['disallowedTools', 'Bash', { disallowedTools: ['Bash'] }, undefined],
    ['managedSettings, WebFetch', 'WebFetch', { managedSettings: { permissions: { deny: ['WebFetch'] } } }, undefined],
  ];
  it.each(layers)('from %s (%s)', async (_layer, tool, extra, prepare) => {
    const input = tool === 'Bash' ? { command: 'echo hi', description: 'echo' } : { url: 'http://127.0.0.1:9/x', prompt: 'p' };
    const { run, msgs } = await runDenying(tool, input, extra, prepare);
    const offered = toolNames(run);
    expect(offered.map((names) => names.includes(tool))).toEqual([false, false, false, false]);
    expect(initTools(msgs).includes(tool)).toBe(false);
    expect(toolResults(msgs)).toEqual([
      ['toolu_main', true, WITHHELD(tool)],
      ['toolu_sub', true, WITHHELD(tool)],
      ['toolu_agent', false, 'sub done'],
    ]);
  });

  it('a deny with a specifier, or one the host adds mid-session, leaves the tool offered and refuses the call (as Claude Code)', async () => {
    const run = scriptedRun({
      rules: [
        { when: { lastUserText: 'first', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_w', name: 'Write', input: { file_path: '{{cwd}}/a.txt', content: 'a' } }] } },
        { when: { lastUserText: 'second', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'mkdir made', description: 'mkdir' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'ok' }] } },
      ],
    });
    const input = promptChannel();
    input.push('first');
    let results = 0;
    const msgs = await collect(
      query({
        prompt: input,
        options: run.options({
          settings: { permissions: { deny: ['Bash(rm:*)'] } },
          canUseTool: async (_n, i) => ({ behavior: 'allow', updatedInput: i, updatedPermissions: [{ type: 'addRules', behavior: 'deny', rules: [{ toolName: 'Bash' }], destination: 'session' }] }),
        }),
      }),
      (m) => {
        if (m.type !== 'result') return;
        results++;
        if (results === 1) input.push('second');
        else input.close();
      },
    );
    expect(toolNames(run).map((names) => names.includes('Bash'))).toEqual([true, true, true, true]);
    expect(toolResults(msgs).map(([id, isError, text]) => [id, isError, id === 'toolu_b' ? text : ''])).toEqual([
      ['toolu_w', false, ''],
      ['toolu_b', true, 'Permission to use Bash(mkdir made) has been denied by the rule Bash (session).'],
    ]);
    expect(existsSync(join(run.cwd, 'made'))).toBe(false);
    expect(msgs.at(-1)).toMatchObject({ type: 'result', permission_denials: [{ tool_name: 'Bash', tool_use_id: 'toolu_b' }] });
  });
});

describe('an updatedInput from the host or a hook', () => {
  const writeScenario: Scenario = {
    rules: [
      { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_w', name: 'Write', input: { file_path: '{{cwd}}/asked.txt', content: 'x\n' } }] } },
      { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
    ],
  };
  const HOOK_TAIL = "The tool input from the model was valid; the hook's rewrite of it was not.";

  it('canUseTool’s relative file_path is refused by the tool’s own check; nothing is written', async () => {
    const run = scriptedRun(writeScenario);
    const msgs = await collect(query({ prompt: 'write', options: run.options({ canUseTool: async () => ({ behavior: 'allow', updatedInput: { file_path: 'rel.txt', content: 'x\n' } }) }) }));
    expect(toolResults(msgs)).toEqual([
      [
        'toolu_w',
        true,
        `<tool_use_error>The permission handler returned updatedInput for Write that the tool refused: file_path must be an absolute path, not a relative one: "rel.txt". Did you mean "${join(run.cwd, 'rel.txt')}"?\nThe tool input from the model was valid; the permission handler's rewrite of it was not.</tool_use_error>`,
      ],
    ]);
    expect([existsSync(join(run.cwd, 'rel.txt')), existsSync(join(run.cwd, 'asked.txt'))]).toEqual([false, false]);
  });

  it('canUseTool’s input that fails the schema gets Claude Code’s configuration error', async () => {
    const run = scriptedRun(writeScenario);
    const msgs = await collect(query({ prompt: 'write', options: run.options({ canUseTool: async () => ({ behavior: 'allow', updatedInput: { file_path: 42 } }) }) }));
    expect(toolResults(msgs)).toEqual([
      [
        'toolu_w',
        true,
        "<tool_use_error>The permission handler returned updatedInput for Write that failed schema validation: Write failed due to the following issues:\nThe parameter `file_path` type is expected as `string` but provided as `number`\nThe required parameter `content` is missing\nThis is a configuration issue in your canUseTool callback, PermissionRequest hook, or permission-prompt tool — updatedInput must satisfy the tool's input schema. The tool input from the model was valid.</tool_use_error>",
      ],
    ]);
  });

  it('canUseTool’s input that names a path a deny rule protects is denied; nothing is written', async () => {
    const run = scriptedRun(writeScenario);
    const msgs = await collect(
      query({
        prompt: 'write',
        options: run.options({
          settings: { permissions: { deny: ['Edit(./secret/**)'] } },
          canUseTool: async () => ({ behavior: 'allow', updatedInput: { file_path: join(run.cwd, 'secret/x.txt'), content: 'x\n' } }),
        }),
      }),
    );
    expect(toolResults(msgs)).toEqual([
      [
        'toolu_w',
        true,
        `The permission handler (Write) returned updatedInput that a deny rule forbids, so the call was not run: Permission to use Write(${join(run.cwd, 'secret/x.txt')}) has been denied by the rule Edit(./secret/**) (flagSettings).`,
      ],
    ]);
    expect(existsSync(join(run.cwd, 'secret/x.txt'))).toBe(false);
    expect(msgs.at(-1)).toMatchObject({ type: 'result', permission_denials: [{ tool_name: 'Write', tool_use_id: 'toolu_w', tool_input: { file_path: join(run.cwd, 'asked.txt'), content: 'x\n' } }] });
  });

  it('a PreToolUse hook’s relative file_path is a deny in Claude Code’s words, listed with the model’s input', async () => {
    const run = scriptedRun(writeScenario);
    const hook: HookCallback = async () => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { file_path: 'rel.txt', content: 'x\n' } } });
    const msgs = await collect(query({ prompt: 'write', options: run.options({ canUseTool: allow, hooks: { PreToolUse: [{ matcher: 'Write', hooks: [hook] }] } }) }));
    expect(toolResults(msgs)).toEqual([
      ['toolu_w', true, `PreToolUse hook for Write returned updatedInput that the tool refused: file_path must be an absolute path, not a relative one: "rel.txt". Did you mean "${join(run.cwd, 'rel.txt')}"?\n${HOOK_TAIL}`],
    ]);
    expect(existsSync(join(run.cwd, 'rel.txt'))).toBe(false);
    expect(msgs.at(-1)).toMatchObject({ type: 'result', permission_denials: [{ tool_name: 'Write', tool_use_id: 'toolu_w', tool_input: { file_path: join(run.cwd, 'asked.txt'), content: 'x\n' } }] });
  });

  it('a PreToolUse hook’s input that names a denied path is denied by the rule, even with the hook’s allow', async () => {
    const run = scriptedRun(writeScenario);
    const target = (cwd: string): string => join(cwd, 'secret/x.txt');
    const hook: HookCallback = async () => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { file_path: target(run.cwd), content: 'x\n' } } });
    const msgs = await collect(
      query({ prompt: 'write', options: run.options({ settings: { permissions: { deny: ['Edit(./secret/**)'] } }, canUseTool: allow, hooks: { PreToolUse: [{ matcher: 'Write', hooks: [hook] }] } }) }),
    );
    expect(toolResults(msgs)).toEqual([['toolu_w', true, `Permission to use Write(${target(run.cwd)}) has been denied by the rule Edit(./secret/**) (flagSettings).`]]);
    expect(existsSync(target(run.cwd))).toBe(false);
  });
});
