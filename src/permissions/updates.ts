// Permission updates (from a host's allow answer or a hook): rules, mode and directories, for the session or
// persisted to the settings file the destination names.
import type { Logger } from '../log/logger.js';
import { normalizeMode, type PermissionModeName } from './modes.js';
import type { RuleBehavior, RuleSet, RuleSource, RuleValue } from './rules.js';

export type UpdateDestination = 'userSettings' | 'projectSettings' | 'localSettings' | 'session' | 'cliArg';

export interface PermissionUpdateValue {
  type: 'addRules' | 'replaceRules' | 'removeRules' | 'setMode' | 'addDirectories' | 'removeDirectories';
  rules?: RuleValue[];
  behavior?: RuleBehavior;
  mode?: string;
  directories?: string[];
  destination: UpdateDestination;
}

export interface UpdateTarget {
  rules: RuleSet;
  setMode(mode: PermissionModeName): void;
  addDirectories(dirs: string[]): void;
  removeDirectories(dirs: string[]): void;
  /** Writes the update into the settings file of `destination`. */
  persist(destination: 'userSettings' | 'projectSettings' | 'localSettings', update: PermissionUpdateValue): Promise<void>;
  /** Directory `/path` rule specifiers are relative to for a destination. */
  baseDirFor(destination: UpdateDestination): string;
  /** Why no update may add allow rules (the managed policy's allowManagedPermissionRulesOnly), if so. */
  allowRulesLocked?: string | undefined;
}

/**
 * A target that changes nothing: for a session whose permissions are fixed (`agentd mcp serve`, test hosts).
 * Updates still go through applyUpdates' checks; their effects are dropped.
 */
export function fixedUpdateTarget(rules: RuleSet, baseDir: string, allowRulesLocked?: string): UpdateTarget {
  return {
    rules,
    setMode: () => undefined,
    addDirectories: () => undefined,
    removeDirectories: () => undefined,
    persist: async () => undefined,
    baseDirFor: () => baseDir,
    ...(allowRulesLocked !== undefined ? { allowRulesLocked } : {}),
  };
}

export async function applyUpdates(updates: readonly PermissionUpdateValue[], t: UpdateTarget, cwd: string, logger: Logger): Promise<void> {
  for (const u of updates) {
    if (t.allowRulesLocked !== undefined && u.behavior === 'allow' && (u.type === 'addRules' || u.type === 'replaceRules')) {
      logger.warn({ update: u.type, destination: u.destination }, `permission update ignored: ${t.allowRulesLocked}`);
      continue;
    }
    const source: RuleSource = u.destination;
    const baseDir = t.baseDirFor(u.destination) || cwd;
    switch (u.type) {
      case 'addRules':
        if (u.rules && u.behavior) t.rules.add(u.rules.map((r) => ({ ...r, behavior: u.behavior as RuleBehavior, source, baseDir })));
        break;
      case 'replaceRules':
        if (u.rules && u.behavior) t.rules.replace(u.rules, u.behavior, source, baseDir);
        break;
      case 'removeRules':
        if (u.rules && u.behavior) t.rules.remove(u.rules, u.behavior, source);
        break;
      case 'setMode': {
        const m = u.mode ? normalizeMode(u.mode) : undefined;
        if (m && m !== 'bypassPermissions') t.setMode(m);
        else logger.warn({ mode: u.mode }, 'permission update with an unusable mode ignored');
        break;
      }
      case 'addDirectories':
        t.addDirectories(u.directories ?? []);
        break;
      case 'removeDirectories':
        t.removeDirectories(u.directories ?? []);
        break;
    }
    if (u.destination === 'userSettings' || u.destination === 'projectSettings' || u.destination === 'localSettings') {
      try {
        await t.persist(u.destination, u);
      } catch (err) {
        logger.error({ err, destination: u.destination }, 'could not persist a permission update (it still applies to this session)');
      }
    }
  }
}
