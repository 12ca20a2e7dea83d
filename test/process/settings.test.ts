// The configuration at the process edge: a security setting agentd cannot honour, an unreadable managed policy or
// a refused flag ends the start-up with exit code 2 and one clear stderr line (plus a typed error result for
// stream-json output); a broken user settings file is named on stderr and the session still answers.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTD, baseEnv } from '../support/daemon.js';

function run(args: string[], setup: (home: string, env: Record<string, string>) => void = () => undefined) {
  const env = baseEnv({ AGENTD_SCENARIO: 'builtin:demo', AGENTD_LOG_LEVEL: 'warn' });
  const home = env['HOME'] as string;
  setup(home, env);
  const r = spawnSync(AGENTD, args, { env, cwd: home, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, env };
}

describe('start-up refusals', () => {
  it('a managed policy file that is not JSON: exit 2, one stderr line naming it', () => {
    const r = run(['-p', 'hi'], (_home, env) => {
      const dir = env['AGENTD_MANAGED_SETTINGS_DIR'] as string;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'managed-settings.json'), '{ nope');
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^agentd: \S+\/managed-settings\.json is not valid JSON: .+\n$/);
  });

  it('a security setting agentd cannot honour in the user settings: exit 2 and a typed error result for stream-json', () => {
    const r = run(['-p', 'hi', '--output-format', 'stream-json', '--verbose'], (home) => {
      mkdirSync(join(home, '.claude'), { recursive: true });
      writeFileSync(join(home, '.claude/settings.json'), JSON.stringify({ permissions: { blockReadsOutsideWorkingDirectories: true } }));
    });
    expect(r.code).toBe(2);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
    expect(lines[0]?.['errors']).toEqual([expect.stringMatching(/settings\.json sets permissions\.blockReadsOutsideWorkingDirectories, a security setting agentd cannot honour/)]);
  });

  it('--managed-settings-in-initialize is refused (the policy would arrive after it must bind)', () => {
    const r = run(['-p', 'hi', '--managed-settings-in-initialize']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("agentd: --managed-settings-in-initialize is not supported by agentd: pass the managed settings with --managed-settings (the SDK's default delivery).\n");
  });

  it('--managed-settings that disables bypass mode refuses --dangerously-skip-permissions', () => {
    const r = run(['-p', 'hi', '--dangerously-skip-permissions', '--managed-settings', JSON.stringify({ permissions: { disableBypassPermissionsMode: 'disable' } })]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('agentd: Permission mode bypassPermissions was requested, but --managed-settings disables it.\n');
  });
});

describe('settings that are skipped, not fatal', () => {
  it('a user settings file that is not JSON is named on stderr once; the answer still comes', () => {
    const r = run(['-p', 'hi'], (home) => {
      mkdirSync(join(home, '.claude'), { recursive: true });
      writeFileSync(join(home, '.claude/settings.json'), '{ "model": ');
      writeFileSync(join(home, '.claude/settings.json.bak'), 'x');
    });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(0);
    const mentions = r.stderr.split('\n').filter((l) => l.includes('settings.json') && l.includes('not valid JSON'));
    expect(mentions).toHaveLength(1);
  });

  it('a key agentd does not implement is logged once with its file', () => {
    const r = run(['-p', 'hi'], (home) => {
      mkdirSync(join(home, '.claude'), { recursive: true });
      writeFileSync(join(home, '.claude/settings.json'), JSON.stringify({ statusLine: { type: 'command', command: 'x' } }));
    });
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.includes('statusLine'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(join(r.env['HOME'] as string, '.claude/settings.json'));
  });
});
