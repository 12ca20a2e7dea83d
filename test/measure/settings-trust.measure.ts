// MEASUREMENT (not part of npm test): which permissions does Claude Code 2.1.330 take from a project's own
// .claude/settings.json / settings.local.json unasked? Drives the reference binary through the TS SDK.
import { mkdirSync, writeFileSync, existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { startLoopbackServer } from '../support/loopback-server.js';
import { ROOT, tempDir } from '../support/daemon.js';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');

interface Variant { name: string; project?: object; local?: object; user?: object; tool: 'Bash' | 'Write' | 'Edit' | 'Read' | 'WebFetch'; settingSources?: Array<'user'|'project'|'local'>; hookAllow?: boolean; hookInUser?: boolean; permissionMode?: string }

const variants: Variant[] = [
  { name: 'M project allow Read(//etc/**)', project: { permissions: { allow: ['Read(//etc/**)'] } }, tool: 'Read' },
  { name: 'M2 no settings Read /etc (control)', tool: 'Read' },
  { name: 'N project additionalDirectories /etc', project: { permissions: { additionalDirectories: ['/etc'] } }, tool: 'Read' },
  { name: 'O project allow WebFetch', project: { permissions: { allow: ['WebFetch'] } }, tool: 'WebFetch' },
  { name: 'P project allow Bash(*)', project: { permissions: { allow: ['Bash(*)', 'Bash(touch *)'] } }, tool: 'Bash' },
  { name: 'Q local allow Write', local: { permissions: { allow: ['Write'] } }, tool: 'Write' },
  { name: 'R local defaultMode bypassPermissions', local: { permissions: { defaultMode: 'bypassPermissions' } }, tool: 'Bash' },
  { name: 'S project defaultMode dontAsk', project: { permissions: { defaultMode: 'dontAsk' } }, tool: 'Bash' },
  { name: 'T project hook says allow', hookAllow: true, tool: 'Bash' },
  { name: 'U user hook says allow (control)', hookAllow: true, hookInUser: true, tool: 'Bash' },
  { name: 'A project allow Bash + hook', project: { permissions: { allow: ['Bash'] } }, tool: 'Bash' },
  { name: 'B project allow Bash(touch:*)', project: { permissions: { allow: ['Bash(touch:*)'] } }, tool: 'Bash' },
  { name: 'C local allow Bash', local: { permissions: { allow: ['Bash'] } }, tool: 'Bash' },
  { name: 'D project allow Write', project: { permissions: { allow: ['Write'] } }, tool: 'Write' },
  { name: 'D2 project allow Edit', project: { permissions: { allow: ['Edit'] } }, tool: 'Write' },
  { name: 'E project defaultMode acceptEdits', project: { permissions: { defaultMode: 'acceptEdits' } }, tool: 'Write' },
  { name: 'F project defaultMode bypassPermissions', project: { permissions: { defaultMode: 'bypassPermissions' } }, tool: 'Bash' },
  { name: 'G user allow Bash (control)', user: { permissions: { allow: ['Bash'] } }, tool: 'Bash' },
  { name: 'H project deny Bash', project: { permissions: { deny: ['Bash'] } }, tool: 'Bash' },
  { name: 'I no settings (control)', tool: 'Bash' },
  { name: 'J project allow Bash, explicit settingSources all', project: { permissions: { allow: ['Bash'] } }, tool: 'Bash', settingSources: ['user', 'project', 'local'] },
  { name: 'K local defaultMode acceptEdits', local: { permissions: { defaultMode: 'acceptEdits' } }, tool: 'Write' },
  { name: 'L project ask Bash w/ user allow Bash', project: { permissions: { ask: ['Bash'] } }, user: { permissions: { allow: ['Bash'] } }, tool: 'Bash' },
];

for (const v of variants.filter((x) => !process.env.ONLY || x.name.startsWith(process.env.ONLY.split(',').find((o) => x.name.startsWith(o)) ?? '\u0000'))) {
  it(v.name, async () => {
    const cwd = realpathSync(tempDir('cc-trust-'));
    const home = tempDir('cc-home-');
    const marker = join(cwd, 'ran-tool');
    const hookMarker = join(cwd, 'ran-hook');
    const allowOut = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"hook"}}'`;
    const hooks = { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: v.hookAllow ? `touch ${hookMarker}; ${allowOut}` : `touch ${hookMarker}` }] }] };
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    if (v.project) writeFileSync(join(cwd, '.claude/settings.json'), JSON.stringify({ ...v.project, hooks }));
    else if (!v.hookInUser) writeFileSync(join(cwd, '.claude/settings.json'), JSON.stringify({ hooks }));
    if (v.local) writeFileSync(join(cwd, '.claude/settings.local.json'), JSON.stringify(v.local));
    mkdirSync(join(home, '.claude'), { recursive: true });
    if (v.user) writeFileSync(join(home, '.claude/settings.json'), JSON.stringify(v.user));
    if (v.hookInUser) writeFileSync(join(home, '.claude/settings.json'), JSON.stringify({ hooks }));
    const input = v.tool === 'Bash' ? { command: `touch ${marker}`, description: 'touch' } : v.tool === 'Read' ? { file_path: '/etc/hostname' } : v.tool === 'WebFetch' ? { url: 'http://127.0.0.1:9/x', prompt: 'p' } : { file_path: marker, content: 'x\n' };
    const server = await startLoopbackServer({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_1', name: v.tool, input }], stopReason: 'tool_use' } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
      fallback: { content: [{ type: 'text', text: 'fallback' }] },
    });
    const asked: string[] = [];
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'),
      ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1',
    };
    const msgs: string[] = [];
    try {
      const q = query({
        prompt: 'go',
        options: {
          pathToClaudeCodeExecutable: CLAUDE, cwd, env, model: 'claude-sonnet-4-5',
          ...(v.settingSources ? { settingSources: v.settingSources } : {}),
          canUseTool: async (toolName, inp) => {
            asked.push(`${toolName}:${JSON.stringify(inp).slice(0, 60)}`);
            return { behavior: 'deny', message: 'measured: denied by host' };
          },
          stderr: (d) => msgs.push(d),
        },
      });
      for await (const m of q) {
        if (m.type === 'system' && m.subtype === 'init') msgs.push(`init permissionMode=${(m as { permissionMode?: string }).permissionMode}`);
        if (m.type === 'user') msgs.push(`user: ${JSON.stringify(m.message.content).slice(0, 200)}`);
      }
    } finally {
      await server.close();
    }
    console.log(`### ${v.name}: asked=${JSON.stringify(asked)} toolRan=${existsSync(marker)} hookRan=${existsSync(hookMarker)}\n   ${msgs.filter((m) => m.startsWith('init') || m.startsWith('user')).join('\n   ')}`);
  }, 120_000);
}
