// Settings trust (issue 9 item 4, issue 22), through the official SDK with default options (settingSources omitted,
// so every source is loaded): an untrusted repository's own .claude/settings.json and settings.local.json cannot
// grant shell or write access the host never saw, and their hooks do not run. Claude Code 2.1.330, measured the same
// way (README "Settings trust"), ignores project allow rules and additionalDirectories and bypassPermissions from
// both files, but honours local allow rules, acceptEdits from both files and runs a project hook (whose "allow" it
// follows); agentd honours none of those grants unless the repository is trusted or agentd wrote the file for the
// host. Deny/ask rules still apply. Plus the loader's rules as unit checks.
import type { CanUseTool } from '@anthropic-ai/claude-agent-sdk';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { persistUpdate, settingsPaths, trustStorePath } from '../../src/cli/settings.js';
import { loadSettings as loadResolved } from '../../src/config/config.js';
import { tempDir } from '../support/daemon.js';
import { collect, query, scriptedRun, toolResults } from '../support/sdk-run.js';

interface Case {
  name: string;
  project?: object;
  local?: object;
  user?: object;
  tool: 'Bash' | 'Write';
  /** The project's PreToolUse hook answers "allow". */
  hookAllows?: boolean;
  /** The host trusts the repository for this run (--trust-workspace). */
  trusted?: boolean;
  asked: boolean;
}

const CASES: Case[] = [
  { name: 'project allow Bash', project: { permissions: { allow: ['Bash'] } }, tool: 'Bash', asked: true },
  { name: 'project allow Bash(touch:*)', project: { permissions: { allow: ['Bash(touch:*)', 'Bash(*)'] } }, tool: 'Bash', asked: true },
  { name: 'local allow Bash', local: { permissions: { allow: ['Bash'] } }, tool: 'Bash', asked: true },
  { name: 'project allow Write and Edit', project: { permissions: { allow: ['Write', 'Edit'] } }, tool: 'Write', asked: true },
  { name: 'local allow Write', local: { permissions: { allow: ['Write'] } }, tool: 'Write', asked: true },
  { name: 'project defaultMode acceptEdits', project: { permissions: { defaultMode: 'acceptEdits' } }, tool: 'Write', asked: true },
  { name: 'local defaultMode acceptEdits', local: { permissions: { defaultMode: 'acceptEdits' } }, tool: 'Write', asked: true },
  { name: 'project defaultMode bypassPermissions', project: { permissions: { defaultMode: 'bypassPermissions' } }, tool: 'Bash', asked: true },
  { name: 'project hook answers allow', hookAllows: true, tool: 'Bash', asked: true },
  { name: 'control: user settings allow Bash', user: { permissions: { allow: ['Bash'] } }, tool: 'Bash', asked: false },
  { name: 'trusted repository: project allow Bash', project: { permissions: { allow: ['Bash'] } }, tool: 'Bash', trusted: true, asked: false },
  { name: 'trusted repository: project hook answers allow', hookAllows: true, tool: 'Bash', trusted: true, asked: false },
];

describe('a project cannot grant itself shell or write access (SDK, default options)', () => {
  for (const c of CASES) {
    it(`${c.asked ? 'asks' : 'does not ask'}: ${c.name}`, async () => {
      const cwd = tempDir('agentd-trust-');
      const marker = join(cwd, 'ran-tool');
      const hookMarker = join(cwd, 'ran-hook');
      const input = c.tool === 'Bash' ? { command: `touch ${marker}`, description: 'touch' } : { file_path: marker, content: 'x\n' };
      const run = scriptedRun(
        {
          rules: [
            { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_1', name: c.tool, input }] } },
            { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
          ],
        },
        { cwd },
      );
      const allowOut = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`;
      const hooks = { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: c.hookAllows ? `touch ${hookMarker}; ${allowOut}` : `touch ${hookMarker}` }] }] };
      mkdirSync(join(cwd, '.claude'), { recursive: true });
      writeFileSync(join(cwd, '.claude/settings.json'), JSON.stringify({ ...c.project, hooks }));
      if (c.local) writeFileSync(join(cwd, '.claude/settings.local.json'), JSON.stringify(c.local));
      if (c.user) {
        mkdirSync(join(run.home, '.claude'), { recursive: true });
        writeFileSync(join(run.home, '.claude/settings.json'), JSON.stringify(c.user));
      }
      const asked: string[] = [];
      const canUseTool: CanUseTool = async (name) => {
        asked.push(name);
        return { behavior: 'deny', message: 'denied by the test host' };
      };
      const msgs = await collect(query({ prompt: 'go', options: run.options({ canUseTool, ...(c.trusted ? { extraArgs: { 'trust-workspace': null } } : {}) }) }));
      // The project's hook runs only in a trusted repository (Claude Code runs it in any).
      expect(existsSync(hookMarker)).toBe(c.trusted === true);
      if (c.asked) {
        expect(asked).toEqual([c.tool]);
        expect(existsSync(marker)).toBe(false);
        expect(toolResults(msgs)).toEqual([['toolu_1', true, 'denied by the test host']]);
      } else {
        expect(asked).toEqual([]);
        expect(existsSync(marker)).toBe(true);
      }
    }, 60_000);
  }
});

describe('loadSettings: what repository files may grant', () => {
  const project = { permissions: { allow: ['Bash', 'Read(./docs/**)'], deny: ['Bash(rm:*)'], ask: ['Read(./x)'], defaultMode: 'acceptEdits', additionalDirectories: ['/opt'] } };
  const local = { permissions: { allow: ['Bash(npm test:*)', 'Edit(./src/**)', 'NotebookEdit', 'MultiEdit', 'Write', 'Read(./notes/**)', 'WebFetch(domain:example.com)'], defaultMode: 'bypassPermissions', additionalDirectories: ['/srv'] } };

  function fixture(): { cwd: string; configDir: string } {
    const cwd = tempDir('agentd-settings-');
    const configDir = join(tempDir('agentd-cfg-'), '.claude');
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    writeFileSync(join(cwd, '.claude/settings.json'), JSON.stringify(project));
    writeFileSync(join(cwd, '.claude/settings.local.json'), JSON.stringify(local));
    return { cwd, configDir };
  }

  it('keeps restrictions and non-granting rules, drops grants, and says what it dropped', () => {
    const { cwd, configDir } = fixture();
    const s = loadResolved({ sources: ['user', 'project', 'local'], flagSettings: undefined, configDir, cwd, managedDir: '/nonexistent' });
    expect(s.rules.map((r) => `${r.behavior} ${r.toolName}${r.ruleContent ? `(${r.ruleContent})` : ''} ${r.source}`)).toEqual([
      'deny Bash(rm:*) projectSettings',
      'ask Read(./x) projectSettings',
      'allow Read(./notes/**) localSettings',
      'allow WebFetch(domain:example.com) localSettings',
    ]);
    expect(s.defaultMode).toBeUndefined();
    expect(s.additionalDirectories).toEqual([]);
    const p = settingsPaths(configDir, cwd);
    expect(s.ignored).toEqual([
      { file: p.projectSettings, what: 'allow rule Bash' },
      { file: p.projectSettings, what: 'allow rule Read(./docs/**)' },
      { file: p.projectSettings, what: 'defaultMode acceptEdits' },
      { file: p.projectSettings, what: 'additionalDirectories /opt' },
      { file: p.localSettings, what: 'allow rule Bash(npm test:*)' },
      { file: p.localSettings, what: 'allow rule Edit(./src/**)' },
      { file: p.localSettings, what: 'allow rule NotebookEdit' },
      { file: p.localSettings, what: 'allow rule MultiEdit' },
      { file: p.localSettings, what: 'allow rule Write' },
      { file: p.localSettings, what: 'defaultMode bypassPermissions' },
      { file: p.localSettings, what: 'additionalDirectories /srv' },
    ]);
  });

  it('the same files given by the host (--settings, user settings) grant everything', () => {
    const { cwd, configDir } = fixture();
    const s = loadResolved({ sources: [], flagSettings: JSON.stringify(project), configDir, cwd, managedDir: '/nonexistent' });
    expect(s.rules.filter((r) => r.behavior === 'allow').map((r) => r.toolName)).toEqual(['Bash', 'Read']);
    expect(s.defaultMode).toBe('acceptEdits');
    expect(s.additionalDirectories).toEqual(['/opt']);
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'settings.json'), JSON.stringify(local));
    const u = loadResolved({ sources: ['user'], flagSettings: undefined, configDir, cwd, managedDir: '/nonexistent' });
    expect(u.rules.filter((r) => r.behavior === 'allow').length).toBe(7);
    expect(u.ignored).toEqual([]);
  });

  it('a local file agentd wrote for the host keeps its grants, until someone else changes it', () => {
    const { cwd, configDir } = fixture();
    const p = settingsPaths(configDir, cwd);
    persistUpdate(p.localSettings, { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'make:*' }], behavior: 'allow', destination: 'localSettings' }, trustStorePath(configDir));
    const s = loadResolved({ sources: ['local'], flagSettings: undefined, configDir, cwd, managedDir: '/nonexistent' });
    expect(s.rules.filter((r) => r.toolName === 'Bash').map((r) => r.ruleContent)).toEqual(['npm test:*', 'make:*']);
    expect(s.ignored).toEqual([]);
    writeFileSync(p.localSettings, JSON.stringify({ permissions: { allow: ['Bash'] } }));
    const t = loadResolved({ sources: ['local'], flagSettings: undefined, configDir, cwd, managedDir: '/nonexistent' });
    expect(t.rules).toEqual([]);
    expect(t.ignored).toEqual([{ file: p.localSettings, what: 'allow rule Bash' }]);
  });
});
