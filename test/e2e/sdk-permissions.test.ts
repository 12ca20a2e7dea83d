// Permissions and hooks through the official SDK (issue 4, "Done when"): canUseTool allow / deny / updatedInput /
// updatedPermissions, PreToolUse deny and rewrite, PostToolUse context, setPermissionMode, interrupt while a
// permission request is pending.
import type { CanUseTool, HookCallback, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, collectSettled, promptChannel, query, scriptedRun, toolResults } from '../support/sdk-run.js';

function writeScenario(files: string[]) {
  return {
    rules: [
      {
        when: { hasToolResults: false },
        reply: { content: files.map((f, i) => ({ type: 'tool_use' as const, id: `toolu_w${i}`, name: 'Write', input: { file_path: `{{cwd}}/${f}`, content: `${f} content\n` } })) },
      },
      { when: { hasToolResults: true }, reply: { content: [{ type: 'text' as const, text: 'Done.' }] } },
    ],
  };
}

describe('canUseTool through the SDK', () => {
  it('allow, deny (listed in permission_denials), and allow with a rewritten input', async () => {
    const run = scriptedRun(writeScenario(['allowed.txt', 'denied.txt', 'rewrite.txt']));
    const asked: string[] = [];
    const canUseTool: CanUseTool = async (name, input, { toolUseID }): Promise<PermissionResult> => {
      asked.push(`${name}:${toolUseID}`);
      const path = String(input['file_path']);
      if (path.endsWith('denied.txt')) return { behavior: 'deny', message: 'Not that one.' };
      if (path.endsWith('rewrite.txt')) return { behavior: 'allow', updatedInput: { ...input, content: 'rewritten by the host\n' } };
      return { behavior: 'allow', updatedInput: input };
    };
    const msgs = await collect(query({ prompt: 'write three files', options: run.options({ canUseTool }) }));
    expect(asked).toEqual(['Write:toolu_w0', 'Write:toolu_w1', 'Write:toolu_w2']);
    expect(readFileSync(join(run.cwd, 'allowed.txt'), 'utf8')).toBe('allowed.txt content\n');
    expect(existsSync(join(run.cwd, 'denied.txt'))).toBe(false);
    expect(readFileSync(join(run.cwd, 'rewrite.txt'), 'utf8')).toBe('rewritten by the host\n');
    const created = (f: string): string => `File created successfully at: ${join(run.cwd, f)} (file state is current in your context — no need to Read it back)`;
    expect(toolResults(msgs)).toEqual([
      ['toolu_w0', false, created('allowed.txt')],
      ['toolu_w1', true, 'Not that one.'],
      ['toolu_w2', false, created('rewrite.txt')],
    ]);
    const result = msgs.at(-1);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', permission_denials: [{ tool_name: 'Write', tool_use_id: 'toolu_w1', tool_input: { file_path: join(run.cwd, 'denied.txt'), content: 'denied.txt content\n' } }] });
    // The frame of the denied call records who decided.
    const denied = run.taps[0]?.frames.find((f) => f['type'] === 'user' && JSON.stringify(f).includes('toolu_w1'));
    expect(denied?.['tool_result_meta']).toEqual([{ id: 'toolu_w1', permission_decision: { decision: 'reject', source: 'user_reject', decided_by: 'host:deny' }, non_execution_kind: 'permission-rule' }]);
  });

  it('allow with updatedPermissions: the next identical call is not asked again', async () => {
    const scenario = {
      rules: [
        { when: { lastUserText: 'first', hasToolResults: false }, reply: { content: [{ type: 'tool_use' as const, id: 'toolu_a', name: 'WebFetch', input: { url: 'http://127.0.0.1:9/a', prompt: 'x' } }] } },
        { when: { lastUserText: 'second', hasToolResults: false }, reply: { content: [{ type: 'tool_use' as const, id: 'toolu_b', name: 'WebFetch', input: { url: 'http://127.0.0.1:9/b', prompt: 'x' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text' as const, text: 'ok' }] } },
      ],
    };
    const run = scriptedRun(scenario);
    const asked: string[] = [];
    const canUseTool: CanUseTool = async (_n, input, { suggestions }) => {
      asked.push(String(input['url']));
      return { behavior: 'allow', updatedInput: input, updatedPermissions: suggestions ?? [] };
    };
    const input = promptChannel();
    input.push('first fetch');
    let results = 0;
    await collect(query({ prompt: input, options: run.options({ canUseTool }) }), (m) => {
      if (m.type !== 'result') return;
      results++;
      if (results === 1) input.push('second fetch');
      else input.close();
    });
    expect(asked).toEqual(['http://127.0.0.1:9/a']);
    // The suggestion was a localSettings rule: it was persisted where Claude Code keeps it.
    expect(JSON.parse(readFileSync(join(run.cwd, '.claude/settings.local.json'), 'utf8'))).toEqual({ permissions: { allow: ['WebFetch(domain:127.0.0.1)'] } });
  });

  it('setPermissionMode("acceptEdits") changes what is asked', async () => {
    const run = scriptedRun({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'Write', input: { file_path: '{{cwd}}/f{{requestIndex}}.txt', content: 'x' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'ok' }] } },
      ],
    });
    let asked = 0;
    const canUseTool: CanUseTool = async (_n, input) => {
      asked++;
      return { behavior: 'allow', updatedInput: input };
    };
    const input = promptChannel();
    input.push('one');
    const q = query({ prompt: input, options: run.options({ canUseTool }) });
    let results = 0;
    const msgs = await collect(q, async (m) => {
      if (m.type !== 'result') return;
      results++;
      if (results === 1) {
        await q.setPermissionMode('acceptEdits');
        input.push('two');
      } else input.close();
    });
    expect(asked).toBe(1);
    expect(msgs.filter((m) => m.type === 'system' && m.subtype === 'init').map((m) => (m as { permissionMode: string }).permissionMode)).toEqual(['default', 'acceptEdits']);
    expect(msgs.some((m) => m.type === 'system' && m.subtype === 'status' && m.permissionMode === 'acceptEdits')).toBe(true);
  });

  it('an interrupt while a permission request is pending resolves it as denied and ends the turn', async () => {
    const run = scriptedRun(writeScenario(['pending.txt']));
    let signalled = false;
    const input = promptChannel();
    input.push('write it');
    // eslint-disable-next-line prefer-const -- canUseTool (below) reads q, and query() needs canUseTool before q exists
    let q: ReturnType<typeof query>;
    const canUseTool: CanUseTool = (_n, _i, { signal }) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => {
          signalled = true;
          resolve({ behavior: 'deny', message: 'cancelled' });
        });
        setTimeout(() => void q.interrupt(), 50);
      });
    q = query({ prompt: input, options: run.options({ canUseTool }) });
    // The interrupted turn's result is the last one: the CLI exits 1 (as Claude Code does) and the SDK throws.
    const { messages: msgs, error } = await collectSettled(q, (m) => {
      if (m.type === 'result') input.close();
    });
    expect(error).toBe('Claude Code returned an error result: Interrupted by the user.');
    expect(signalled).toBe(true);
    expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
    expect(existsSync(join(run.cwd, 'pending.txt'))).toBe(false);
    const [[, isError, text]] = toolResults(msgs) as [[string, boolean, string]];
    expect(isError).toBe(true);
    expect(text).toContain('Interrupted by the user');
  });
});

describe('hooks through the SDK', () => {
  it('a PreToolUse hook denies one call and rewrites another; PostToolUse adds context the model sees', async () => {
    const run = scriptedRun(writeScenario(['blocked.txt', 'rewritten.txt']));
    const pre: HookCallback = async (input) => {
      if (input.hook_event_name !== 'PreToolUse') return {};
      const path = String((input.tool_input as { file_path: string }).file_path);
      if (path.endsWith('blocked.txt')) return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'hook says no' } };
      return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { file_path: path, content: 'from the hook\n' } } };
    };
    const seenResponses: unknown[] = [];
    const post: HookCallback = async (input) => {
      if (input.hook_event_name === 'PostToolUse') seenResponses.push(input.tool_response);
      return { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'Remember to run the tests.' } };
    };
    const msgs = await collect(
      query({ prompt: 'write', options: run.options({ hooks: { PreToolUse: [{ matcher: 'Write', hooks: [pre] }], PostToolUse: [{ hooks: [post] }] } }) }),
    );
    expect(existsSync(join(run.cwd, 'blocked.txt'))).toBe(false);
    expect(readFileSync(join(run.cwd, 'rewritten.txt'), 'utf8')).toBe('from the hook\n');
    expect(toolResults(msgs).map(([id, err, t]) => [id, err, t.slice(0, 12)])).toEqual([
      ['toolu_w0', true, 'hook says no'],
      ['toolu_w1', false, expect.any(String)],
    ]);
    expect(seenResponses).toEqual([expect.objectContaining({ type: 'create', filePath: join(run.cwd, 'rewritten.txt') })]);
    const followUp = run.requests()[1];
    expect(JSON.stringify(followUp?.messages.at(-1))).toContain('Remember to run the tests.');
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', permission_denials: [{ tool_use_id: 'toolu_w0' }] });
  });
});

describe('tool errors through the SDK', () => {
  it('an unknown tool and an invalid input each get their error result and the turn goes on', async () => {
    const run = scriptedRun({
      rules: [
        {
          when: { hasToolResults: false },
          reply: { content: [{ type: 'tool_use', id: 'toolu_x', name: 'NoSuchTool', input: {} }, { type: 'tool_use', id: 'toolu_r', name: 'Read', input: { limit: 5 } }] },
        },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Recovered.' }] } },
      ],
    });
    const msgs = await collect(query({ prompt: 'go', options: run.options() }));
    expect(toolResults(msgs)).toEqual([
      ['toolu_x', true, '<tool_use_error>Error: No such tool available: NoSuchTool</tool_use_error>'],
      ['toolu_r', true, '<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe required parameter `file_path` is missing</tool_use_error>'],
    ]);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'Recovered.' });
  });
});
