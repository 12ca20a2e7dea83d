// Settings and managed policy through the official SDK (issue 12 item 6, issue 14 items 5-6): the settings `env`
// reaches a Bash command; the SDK's `managedSettings` deny of Bash beats an allow rule and bypassPermissions; a
// policy that disables bypass mode refuses it at start-up and in setPermissionMode; a settings file that is not
// JSON is reported (system/agentd_warning) and skipped while the session runs.
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/daemon.js';
import { collect, promptChannel, query, scriptedRun, toolResults } from '../support/sdk-run.js';

function bashScenario(command: string) {
  return {
    rules: [
      { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use' as const, id: 'toolu_bash', name: 'Bash', input: { command } }] } },
      { when: { hasToolResults: true }, reply: { content: [{ type: 'text' as const, text: 'Done.' }] } },
    ],
  };
}

describe('settings through the SDK', () => {
  it('the project settings `env` is visible to a Bash command in a trusted repository (settingSources: ["project"])', async () => {
    const run = scriptedRun(bashScenario('echo "var=$PROJECT_SETTING_VAR"'));
    mkdirSync(join(run.cwd, '.claude'), { recursive: true });
    writeFileSync(join(run.cwd, '.claude/settings.json'), JSON.stringify({ env: { PROJECT_SETTING_VAR: 'from-project-settings' }, permissions: { allow: [] } }));
    // A repository's `env` applies once the repository is trusted (here for this run).
    const msgs = await collect(query({ prompt: 'run it', options: run.options({ settingSources: ['project'], allowedTools: ['Bash'], extraArgs: { 'trust-workspace': null } }) }));
    expect(toolResults(msgs)).toEqual([['toolu_bash', false, 'var=from-project-settings']]);
    // Without the project source the file is not read.
    const again = scriptedRun(bashScenario('echo "var=$PROJECT_SETTING_VAR"'), { cwd: run.cwd });
    const msgs2 = await collect(query({ prompt: 'run it', options: again.options({ settingSources: [], allowedTools: ['Bash'] }) }));
    expect(toolResults(msgs2)).toEqual([['toolu_bash', false, 'var=']]);
  });

  it("the SDK's `settings` env (the --settings layer) reaches Bash and wins over the user file", async () => {
    const run = scriptedRun(bashScenario('echo "$A_VAR/$B_VAR"'));
    mkdirSync(join(run.home, '.claude'), { recursive: true });
    writeFileSync(join(run.home, '.claude/settings.json'), JSON.stringify({ env: { A_VAR: 'user', B_VAR: 'user' } }));
    const msgs = await collect(query({ prompt: 'run it', options: run.options({ settingSources: ['user'], settings: { env: { B_VAR: 'flag' } }, allowedTools: ['Bash'] }) }));
    expect(toolResults(msgs)).toEqual([['toolu_bash', false, 'user/flag']]);
  });

  it('the settings `env` reaches command hooks too', async () => {
    const run = scriptedRun(bashScenario('true'));
    const out = join(run.cwd, 'hook-saw.txt');
    const settings = {
      env: { HOOK_SETTING_VAR: 'seen-by-hook' },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' as const, command: `printf '%s' "$HOOK_SETTING_VAR" > ${JSON.stringify(out)}` }] }] },
    };
    await collect(query({ prompt: 'run it', options: run.options({ settingSources: [], settings, allowedTools: ['Bash'] }) }));
    expect(readFileSync(out, 'utf8')).toBe('seen-by-hook');
  });

  it('the settings `env` reaches MCP stdio servers too', async () => {
    const run = scriptedRun({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use' as const, id: 'toolu_env', name: 'mcp__fx__env', input: {} }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text' as const, text: 'Done.' }] } },
      ],
    });
    const msgs = await collect(
      query({
        prompt: 'check',
        options: run.options({
          settingSources: [],
          settings: { env: { FIXTURE_VAR: 'from-settings' } },
          mcpServers: { fx: { command: process.execPath, args: [join(ROOT, 'test/fixtures/mcp-stdio-server.mjs')] } },
          mcpServersDelivery: 'argv',
          allowedTools: ['mcp__fx__env'],
        }),
      }),
    );
    expect(toolResults(msgs)).toEqual([['toolu_env', false, 'ANTHROPIC_API_KEY=unset FIXTURE_VAR=from-settings']]);
  });

  it('a settings file that is not JSON is reported and skipped; the session runs', async () => {
    const run = scriptedRun({ rules: [{ reply: { content: [{ type: 'text' as const, text: 'hello' }] } }] });
    mkdirSync(join(run.cwd, '.claude'), { recursive: true });
    const file = join(run.cwd, '.claude/settings.json');
    writeFileSync(file, '{ "permissions": ');
    const msgs = await collect(query({ prompt: 'hi', options: run.options({ settingSources: ['project'] }) }));
    const warning = msgs.find((m) => m.type === 'system' && (m as { subtype?: string }).subtype === 'agentd_warning') as Record<string, unknown> | undefined;
    expect(warning).toMatchObject({ type: 'system', subtype: 'agentd_warning', code: 'settings_file_invalid', path: file });
    expect(String(warning?.['message'])).toMatch(/is not valid JSON: .*; the file was skipped\.$/);
    expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'hello' });
  });
});

describe('managed policy through the SDK', () => {
  it('managedSettings deny of Bash beats an allow rule and bypassPermissions: the tool is withheld, a call refused, the host never asked', async () => {
    const run = scriptedRun(bashScenario('touch managed-marker'));
    const asked: string[] = [];
    const msgs = await collect(
      query({
        prompt: 'run it',
        options: run.options({
          managedSettings: { permissions: { deny: ['Bash'], allow: ['Bash'] } },
          allowedTools: ['Bash'],
          settings: { permissions: { allow: ['Bash(touch:*)'] } },
          permissionMode: 'bypassPermissions',
          allowDangerouslySkipPermissions: true,
          canUseTool: async (name) => {
            asked.push(name);
            return { behavior: 'allow', updatedInput: {} };
          },
        }),
      }),
    );
    expect(existsSync(join(run.cwd, 'managed-marker'))).toBe(false);
    expect(asked).toEqual([]);
    // As Claude Code 2.1.330: no request offers Bash, and the call is answered as one of a tool the session lacks.
    expect(run.requests().map((r) => (r.tools ?? []).some((t) => t.name === 'Bash'))).toEqual([false, false]);
    expect(toolResults(msgs)).toEqual([['toolu_bash', true, '<tool_use_error>Error: No such tool available: Bash. Bash is disabled for this session, in subagents as well as here.</tool_use_error>']]);
    expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'success', permission_denials: [] });
  });

  it('disableBypassPermissionsMode: bypass is refused at start-up with a typed error, and by setPermissionMode', async () => {
    const run = scriptedRun({ rules: [{ reply: { content: [{ type: 'text' as const, text: 'hello' }] } }] });
    const managedSettings = { permissions: { disableBypassPermissionsMode: 'disable' as const } };
    const startup = collect(query({ prompt: 'hi', options: run.options({ managedSettings, permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true }) }));
    await expect(startup).rejects.toThrow(/Permission mode bypassPermissions was requested, but --managed-settings disables it/);

    const input = promptChannel();
    const q = query({ prompt: input, options: run.options({ managedSettings, allowDangerouslySkipPermissions: true }) });
    const done = collect(q);
    await expect(q.setPermissionMode('bypassPermissions')).rejects.toThrow(/bypassPermissions is disabled by --managed-settings \(permissions\.disableBypassPermissionsMode\)/);
    input.close();
    const msgs: SDKMessage[] = await done;
    expect(msgs.filter((m) => m.type === 'result')).toEqual([]);
  });
});
