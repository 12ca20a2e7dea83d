// Permission updates under a managed policy that allows only its own rules: a host's or hook's update cannot add
// or replace allow rules (nor persist them); deny rules and directories still apply.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log/logger.js';
import type { PermissionModeName } from '../../../src/permissions/modes.js';
import { RuleSet } from '../../../src/permissions/rules.js';
import { type PermissionUpdateValue, type UpdateTarget, applyUpdates } from '../../../src/permissions/updates.js';

function target(locked: string | undefined): { t: UpdateTarget; persisted: string[]; modes: PermissionModeName[]; dirs: string[] } {
  const persisted: string[] = [];
  const modes: PermissionModeName[] = [];
  const dirs: string[] = [];
  return {
    persisted,
    modes,
    dirs,
    t: {
      rules: new RuleSet(),
      setMode: (m) => void modes.push(m),
      addDirectories: (d) => void dirs.push(...d),
      removeDirectories: () => undefined,
      persist: async (dest, u) => void persisted.push(`${dest}:${u.type}:${u.behavior ?? ''}`),
      baseDirFor: () => '/p',
      allowRulesLocked: locked,
    },
  };
}

const UPDATES: PermissionUpdateValue[] = [
  { type: 'addRules', rules: [{ toolName: 'Bash' }], behavior: 'allow', destination: 'localSettings' },
  { type: 'replaceRules', rules: [{ toolName: 'Write' }], behavior: 'allow', destination: 'session' },
  { type: 'addRules', rules: [{ toolName: 'WebFetch' }], behavior: 'deny', destination: 'session' },
  { type: 'addDirectories', directories: ['/x'], destination: 'session' },
  { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
];

describe('applyUpdates', () => {
  it('without a lock every update applies', async () => {
    const x = target(undefined);
    await applyUpdates(UPDATES, x.t, '/p', silentLogger());
    expect(x.t.rules.byBehavior('allow').map((r) => `${r.toolName}@${r.source}`)).toEqual(['Bash@localSettings', 'Write@session']);
    expect(x.persisted).toEqual(['localSettings:addRules:allow']);
  });

  it('allowManagedPermissionRulesOnly: allow-rule updates are dropped, the rest applies', async () => {
    const x = target('the managed policy allows only its own permission rules');
    await applyUpdates(UPDATES, x.t, '/p', silentLogger());
    expect({ allow: x.t.rules.byBehavior('allow'), deny: x.t.rules.byBehavior('deny').map((r) => r.toolName), persisted: x.persisted, modes: x.modes, dirs: x.dirs }).toEqual({
      allow: [],
      deny: ['WebFetch'],
      persisted: [],
      modes: ['acceptEdits'],
      dirs: ['/x'],
    });
  });
});
