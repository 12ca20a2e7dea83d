// MEASUREMENT (not part of npm test): what Claude Code 2.1.330 does with a deny rule that names a whole tool
// (`Bash`, `WebFetch`, no specifier), from each layer: which tools each model request offers (main loop and a
// subagent), what system/init.tools lists, and what a call of the denied tool gets back. Then: what it does with
// an `updatedInput` from the host (canUseTool's allow, a PreToolUse hook) that is not what the model asked —
// schema-invalid, failing the tool's own checks, relative, or pointing at a denied path.
// Drives the reference binary through the official TS SDK against the loopback server (which records bodies).
// The managed policy FILE (/etc/claude-code/managed-settings.json) is measured in a private mount namespace
// (unshare -m, an overlay over /etc), so nothing outside this run sees it; it needs root and overlayfs.
//
// Findings (2.1.330, as run for issue 21):
//  - D1-D8: a bare deny (`Bash`, `Bash(*)`, `WebFetch`) from managedSettings, the policy file, user, project,
//    --settings or disallowedTools removes the tool from every request (main and subagent) and from
//    system/init.tools; a call of it gets `<tool_use_error>Error: No such tool available: Bash. Bash is disabled for
//    this session, in subagents as well as here.</tool_use_error>`, no permission_denials entry.
//  - D9: `Bash(rm:*)` leaves Bash offered. D10: `Bash()` is no deny at all (the call ran). D11/D12: a bare `Edit` /
//    `Read` removes only Edit / Read. D13: a session deny the host adds mid-session leaves the tool offered; the
//    call is refused ("Permission to use Bash has been denied.") and listed in permission_denials.
//  - U3/U4/U8/U9/U11: a PreToolUse hook's updatedInput is checked against the schema and the tool's validateInput;
//    a failure is a deny "PreToolUse hook for Write returned updatedInput that failed schema validation: … / that
//    the tool refused: …\nThe tool input from the model was valid; the hook's rewrite of it was not.", listed in
//    permission_denials with the model's input. U7: a hook's relative path is resolved against the cwd and written.
//  - U5: canUseTool's schema-invalid updatedInput: `<tool_use_error>The permission handler returned updatedInput for
//    Write that failed schema validation: …</tool_use_error>`, no denial. U1: its relative path is written (in cwd).
//    U6/U2: Write's own call re-checks (unread file; a denied path: "Permission to edit … has been denied.").
//    U10/U12: no deny-rule re-check otherwise — a rewritten Bash command a deny rule names ran, a rewritten Read
//    path a deny rule names was read.
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { type HookCallback, type Options, type PermissionResult, query } from '@anthropic-ai/claude-agent-sdk';
import { startLoopbackServer } from '../support/loopback-server.js';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { ROOT, tempDir } from '../support/daemon.js';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');

interface Run {
  cwd: string;
  home: string;
  options?: Partial<Options>;
  user?: object;
  project?: object;
  /** Written as /etc/claude-code/managed-settings.json inside a private mount namespace. */
  policyFile?: object;
  scenario: Scenario;
}

async function drive(r: Run): Promise<{ log: string[] }> {
  mkdirSync(join(r.home, '.claude'), { recursive: true });
  if (r.user) writeFileSync(join(r.home, '.claude/settings.json'), JSON.stringify(r.user));
  if (r.project) {
    mkdirSync(join(r.cwd, '.claude'), { recursive: true });
    writeFileSync(join(r.cwd, '.claude/settings.json'), JSON.stringify(r.project));
  }
  let exe = CLAUDE;
  if (r.policyFile) {
    const ov = tempDir('cc-etc-');
    mkdirSync(join(ov, 'upper/claude-code'), { recursive: true });
    mkdirSync(join(ov, 'work'));
    writeFileSync(join(ov, 'upper/claude-code/managed-settings.json'), JSON.stringify(r.policyFile));
    exe = join(ov, 'claude-in-ns');
    writeFileSync(
      exe,
      `#!/bin/sh\nexec unshare -m sh -c 'mount -t overlay overlay -o lowerdir=/etc,upperdir=${ov}/upper,workdir=${ov}/work /etc && exec "$0" "$@"' ${CLAUDE} "$@"\n`,
    );
    chmodSync(exe, 0o755);
  }
  const server = await startLoopbackServer(r.scenario);
  const log: string[] = [];
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: r.home, CLAUDE_CONFIG_DIR: join(r.home, '.claude'),
    ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1',
  };
  const stderr: string[] = [];
  try {
    const q = query({
      prompt: 'go',
      options: {
        pathToClaudeCodeExecutable: exe, cwd: r.cwd, env, model: 'claude-sonnet-4-5',
        stderr: (d) => stderr.push(d),
        ...r.options,
      },
    });
    for await (const m of q) {
      if (m.type === 'system' && m.subtype === 'init') log.push(`init.tools=${JSON.stringify(m.tools)}`);
      if (m.type === 'user') log.push(`user(parent=${m.parent_tool_use_id}): ${JSON.stringify(m.message.content).slice(0, 400)}`);
      if (m.type === 'system' && m.subtype !== 'init') log.push(`system/${m.subtype}: ${JSON.stringify(m).slice(0, 300)}`);
      if (m.type === 'result') log.push(`result ${m.subtype} denials=${JSON.stringify(m.permission_denials)}`);
    }
  } catch (e) {
    log.push(`THREW ${String(e)} stderr=${stderr.join('').slice(-800)}`);
  } finally {
    await server.close();
  }
  for (const [i, req] of server.requests.entries()) {
    const sys = JSON.stringify(req.body.system ?? '').slice(0, 60);
    log.push(`request ${i}: tools=${JSON.stringify((req.body.tools ?? []).map((t) => (t as { name: string }).name))} system=${sys}`);
  }
  return { log };
}

// ---- Part 1: a whole-tool deny, per layer -------------------------------------------------------------------

/** Main: calls the denied tool and an Agent; the subagent calls it too. */
function denyScenario(tool: 'Bash' | 'WebFetch'): Scenario {
  const input = tool === 'Bash' ? { command: 'echo hi', description: 'echo' } : { url: 'http://127.0.0.1:9/x', prompt: 'p' };
  return {
    rules: [
      { when: { lastUserText: 'subtask', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_sub', name: tool, input }], stopReason: 'tool_use' } },
      { when: { lastUserText: 'subtask', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'sub done' }] } },
      {
        when: { lastUserText: 'go', hasToolResults: false },
        reply: {
          content: [
            { type: 'tool_use', id: 'toolu_1', name: tool, input },
            { type: 'tool_use', id: 'toolu_2', name: 'Agent', input: { description: 'sub', prompt: 'subtask', subagent_type: 'general-purpose' } },
          ],
          stopReason: 'tool_use',
        },
      },
      { when: { lastUserText: 'go', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
    ],
    fallback: { content: [{ type: 'text', text: 'fallback' }] },
  };
}

const allowAll = async (_name: string, input: Record<string, unknown>): Promise<PermissionResult> => ({ behavior: 'allow', updatedInput: input });

interface DenyVariant { name: string; tool: 'Bash' | 'WebFetch'; rule?: string; where: 'managedSettings' | 'policyFile' | 'user' | 'project' | 'settingsFlag' | 'disallowedTools' | 'none' }
const denyVariants: DenyVariant[] = [
  { name: 'D0 control: no deny', tool: 'Bash', where: 'none' },
  { name: 'D1 managedSettings deny Bash', tool: 'Bash', where: 'managedSettings' },
  { name: 'D2 policy file deny Bash', tool: 'Bash', where: 'policyFile' },
  { name: 'D3 user settings deny Bash', tool: 'Bash', where: 'user' },
  { name: 'D4 project settings deny Bash', tool: 'Bash', where: 'project' },
  { name: 'D5 --settings deny Bash', tool: 'Bash', where: 'settingsFlag' },
  { name: 'D6 disallowedTools Bash', tool: 'Bash', where: 'disallowedTools' },
  { name: 'D7 managedSettings deny WebFetch', tool: 'WebFetch', where: 'managedSettings' },
  { name: 'D8 managedSettings deny Bash(*)', tool: 'Bash', rule: 'Bash(*)', where: 'managedSettings' },
  { name: 'D9 managedSettings deny Bash(rm:*) (specific, control)', tool: 'Bash', rule: 'Bash(rm:*)', where: 'managedSettings' },
  { name: 'D10 user settings deny Bash()', tool: 'Bash', rule: 'Bash()', where: 'user' },
  // Does a bare Edit / Read deny take the other editing / reading tools with it? (Watch Write, Glob, Grep.)
  { name: 'D11 user settings deny Edit', tool: 'Bash', rule: 'Edit', where: 'user' },
  { name: 'D12 user settings deny Read', tool: 'Bash', rule: 'Read', where: 'user' },
];

const only = (name: string): boolean => !process.env['ONLY'] || process.env['ONLY'].split(',').some((o) => name.startsWith(`${o} `));

for (const v of denyVariants.filter((x) => only(x.name))) {
  it(v.name, async () => {
    const cwd = realpathSync(tempDir('cc-deny-'));
    const home = tempDir('cc-home-');
    const deny = { permissions: { deny: [v.rule ?? v.tool] } };
    const run: Run = { cwd, home, scenario: denyScenario(v.tool), options: { canUseTool: allowAll } };
    if (v.where === 'managedSettings') run.options = { ...run.options, managedSettings: deny };
    if (v.where === 'settingsFlag') run.options = { ...run.options, settings: deny };
    if (v.where === 'disallowedTools') run.options = { ...run.options, disallowedTools: [v.rule ?? v.tool] };
    if (v.where === 'user') run.user = deny;
    if (v.where === 'project') run.project = deny;
    if (v.where === 'policyFile') run.policyFile = deny;
    const { log } = await drive(run);
    console.log(`### ${v.name}\n   ${log.join('\n   ')}`);
  }, 120_000);
}

// A deny rule the host adds mid-session (canUseTool's updatedPermissions, destination session): is the tool gone
// from the next request?
it('D13 session deny Bash added by the host', async () => {
  if (!only('D13 x')) return;
  const cwd = realpathSync(tempDir('cc-deny-'));
  const home = tempDir('cc-home-');
  const { log } = await drive({
    cwd,
    home,
    options: {
      canUseTool: async (_name, input) => ({
        behavior: 'allow',
        updatedInput: input,
        updatedPermissions: [{ type: 'addRules', behavior: 'deny', rules: [{ toolName: 'Bash' }], destination: 'session' }],
      }),
    },
    scenario: {
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'Write', input: { file_path: join(cwd, 'a.txt'), content: 'a' } }], stopReason: 'tool_use' } },
        { when: { toolResultFor: 'toolu_1' }, reply: { content: [{ type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'echo hi', description: 'e' } }], stopReason: 'tool_use' } },
        { when: { toolResultFor: 'toolu_2' }, reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
    },
  });
  console.log(`### D13 session deny Bash added by the host\n   ${log.join('\n   ')}`);
}, 120_000);

// ---- Part 2: updatedInput from the host ---------------------------------------------------------------------

interface UpdVariant {
  name: string;
  /** What the model asks. */
  model: Record<string, unknown>;
  /** canUseTool's updatedInput (allow) or a PreToolUse hook's. */
  via: 'canUseTool' | 'hook' | 'hookNoDecision' | 'hookAsk';
  updated: (cwd: string) => Record<string, unknown>;
  tool?: 'Write' | 'Bash' | 'Read';
  /** Deny rules (user settings). */
  deny?: (cwd: string) => string[];
  existing?: string;
}

const updVariants: UpdVariant[] = [
  { name: 'U1 canUseTool relative file_path', via: 'canUseTool', model: { content: 'x\n' }, updated: () => ({ file_path: 'rel.txt', content: 'x\n' }) },
  { name: 'U2 canUseTool points at a denied path', via: 'canUseTool', model: { content: 'x\n' }, updated: (cwd) => ({ file_path: join(cwd, 'secret/x.txt'), content: 'x\n' }), deny: () => ['Edit(./secret/**)'] },
  { name: 'U3 hook allow points at a denied path', via: 'hook', model: { content: 'x\n' }, updated: (cwd) => ({ file_path: join(cwd, 'secret/x.txt'), content: 'x\n' }), deny: () => ['Edit(./secret/**)'] },
  { name: 'U4 hook (no decision) points at a denied path', via: 'hookNoDecision', model: { content: 'x\n' }, updated: (cwd) => ({ file_path: join(cwd, 'secret/x.txt'), content: 'x\n' }), deny: () => ['Edit(./secret/**)'] },
  { name: 'U5 canUseTool schema-invalid', via: 'canUseTool', model: { content: 'x\n' }, updated: () => ({ file_path: 42 }) },
  { name: 'U6 canUseTool fails validateInput (existing unread file)', via: 'canUseTool', model: { content: 'x\n' }, updated: (cwd) => ({ file_path: join(cwd, 'existing.txt'), content: 'new\n' }), existing: 'old\n' },
  { name: 'U7 hook relative file_path', via: 'hook', model: { content: 'x\n' }, updated: () => ({ file_path: 'rel.txt', content: 'x\n' }) },
  { name: 'U8 hook schema-invalid', via: 'hook', model: { content: 'x\n' }, updated: () => ({ file_path: 42 }) },
  { name: 'U9 hook fails validateInput (existing unread file)', via: 'hook', model: { content: 'x\n' }, updated: (cwd) => ({ file_path: join(cwd, 'existing.txt'), content: 'new\n' }), existing: 'old\n' },
  // The model's command asks (touch is not read-only); the host rewrites it to one a deny rule names.
  { name: 'U10 canUseTool Bash to a denied command', via: 'canUseTool', tool: 'Bash', model: { command: 'touch asked.txt', description: 'e' }, updated: (cwd) => ({ command: `mkdir ${join(cwd, 'ran-denied')}`, description: 'e' }), deny: () => ['Bash(mkdir:*)'] },
  { name: 'U11 hook ask points at a denied path', via: 'hookAsk', model: { content: 'x\n' }, updated: (cwd) => ({ file_path: join(cwd, 'secret/x.txt'), content: 'x\n' }), deny: () => ['Edit(./secret/**)'] },
  { name: 'U12 canUseTool Read of a denied path', via: 'canUseTool', tool: 'Read', model: { file_path: '/etc/hostname' }, updated: (cwd) => ({ file_path: join(cwd, 'secret/s.txt') }), deny: () => ['Read(./secret/**)'] },
];

for (const v of updVariants.filter((x) => only(x.name))) {
  it(v.name, async () => {
    const cwd = realpathSync(tempDir('cc-upd-'));
    const home = tempDir('cc-home-');
    mkdirSync(join(cwd, 'secret'));
    writeFileSync(join(cwd, 'secret/s.txt'), 'SECRET\n');
    if (v.existing !== undefined) writeFileSync(join(cwd, 'existing.txt'), v.existing);
    const tool = v.tool ?? 'Write';
    const modelInput = tool === 'Write' ? { file_path: join(cwd, 'asked.txt'), ...v.model } : v.model;
    const updated = v.updated(cwd);
    const asked: string[] = [];
    const hook: HookCallback = async () => ({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        ...(v.via === 'hook' ? { permissionDecision: 'allow', permissionDecisionReason: 'hook' } : v.via === 'hookAsk' ? { permissionDecision: 'ask' } : {}),
        updatedInput: updated,
      },
    });
    const options: Partial<Options> = {
      canUseTool: async (name, input) => {
        asked.push(`${name}:${JSON.stringify(input)}`);
        return v.via === 'canUseTool' ? { behavior: 'allow', updatedInput: updated } : { behavior: 'allow', updatedInput: input };
      },
      ...(v.via !== 'canUseTool' ? { hooks: { PreToolUse: [{ matcher: tool, hooks: [hook] }] } } : {}),
    };
    const { log } = await drive({
      cwd,
      home,
      options,
      ...(v.deny ? { user: { permissions: { deny: v.deny(cwd) } } } : {}),
      scenario: {
        rules: [
          { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_1', name: tool, input: modelInput }], stopReason: 'tool_use' } },
          { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
        ],
      },
    });
    const files = ['asked.txt', 'rel.txt', 'secret/x.txt', 'existing.txt', 'ran-denied'].map((f) => `${f}=${!existsSync(join(cwd, f)) ? '-' : statSync(join(cwd, f)).isDirectory() ? '(dir)' : JSON.stringify(readFileSync(join(cwd, f), 'utf8'))}`);
    const relElsewhere = existsSync(join(ROOT, 'rel.txt')) ? 'rel.txt IN THE TEST PROCESS CWD' : '';
    console.log(`### ${v.name}: asked=${JSON.stringify(asked)}\n   files: ${files.join(' ')} ${relElsewhere}\n   ${log.filter((l) => !l.startsWith('request')).join('\n   ')}`);
  }, 120_000);
}
