// The sandbox keys whose meaning depends on the settings layer that sets them, as Claude Code 2.1.330 applies
// them (measured: test/measure/sandbox-managed.measure.ts; settings.ts mergeSandboxBlocks calls this per layer):
//  - network.allowManagedDomainsOnly (managed settings only: the admin file or the SDK's managedSettings): only
//    the managed allowedDomains (and the managed WebFetch(domain:…) allow rules) let a host through; those of
//    the user, project, local and --settings layers are ignored, as are their httpProxyPort/socksProxyPort (an
//    external proxy would decide instead of the list) and every loosening of a repository's file, even one
//    agentd wrote for the host. deniedDomains still count from every layer. Set elsewhere it does nothing.
//  - filesystem.allowManagedReadPathsOnly (managed only): allowRead comes from managed settings only. Set
//    elsewhere it does nothing.
//  - filesystem.disabled (user, --settings or the admin file; never a repository's file, and not the SDK's
//    managedSettings, which keeps restrictive values only: restrictiveSandbox): sandboxed commands get the host's
//    filesystem unconfined, network confinement unchanged. When managed settings configure sandbox.filesystem at
//    all, or list a credentials.files deny entry, only they can set it.
// A value of the wrong type is a warning naming the key and the type expected: in managed settings a lock is read
// as true and `disabled` as false (their restrictive values, as Claude Code reads them); elsewhere the locks mean
// nothing and `disabled` is read as false. (Claude Code drops the whole user or project file for such a value —
// `enabled` included, so its sandbox may not run at all; agentd keeps the rest of the file.)
import type { LayerReport } from './credentials.js';

/** Which settings layer a `sandbox` block came from: `project` covers the local file too. */
export type SandboxLayerSource = 'user' | 'project' | 'flag' | 'policy';

/** What the managed (policy) layer pins for the layers below it. */
export interface ManagedLocks {
  domainsOnly: boolean;
  readPathsOnly: boolean;
  /** Managed settings configure sandbox.filesystem, or deny a credential file: only they set filesystem.disabled. */
  filesystemPinned: boolean;
}

const NO_LOCKS: ManagedLocks = { domainsOnly: false, readPathsOnly: false, filesystemPinned: false };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const shown = (v: unknown): string => (Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`);

/** A lock's value in managed settings: true, or true for a value of the wrong type (fail closed). */
function lockValue(v: unknown): boolean {
  return v !== undefined && v !== false;
}

/** The locks the managed blocks set (the policy layer's; none without one). */
export function managedLocks(policy: readonly unknown[]): ManagedLocks {
  const locks = { ...NO_LOCKS };
  for (const b of policy) {
    if (!isObj(b)) continue;
    const net = b['network'];
    const fs = b['filesystem'];
    const creds = b['credentials'];
    const files = isObj(creds) ? creds['files'] : undefined;
    locks.domainsOnly ||= isObj(net) && lockValue(net['allowManagedDomainsOnly']);
    locks.readPathsOnly ||= isObj(fs) && lockValue(fs['allowManagedReadPathsOnly']);
    // A credentials.files entry that is not a mask denies (or fails closed to a deny: credentials.ts).
    locks.filesystemPinned ||= fs !== undefined || (Array.isArray(files) && files.some((f) => !isObj(f) || f['mode'] !== 'mask'));
  }
  return locks;
}

/** Whether a merged block (settings.ts) carries the managed domain lock: WebFetch allow rules then count from managed settings only. */
export function managedDomainsOnly(merged: unknown): boolean {
  const net = isObj(merged) ? merged['network'] : undefined;
  return isObj(net) && net['allowManagedDomainsOnly'] === true;
}

/**
 * One layer's block with the three keys applied for its source under the managed locks: the locks normalised
 * (kept in the managed layer only), `disabled` kept where it may be set, and what the locks take from a lower
 * layer removed. Reports each key dropped (`ignored`) and each value of the wrong type (`invalid`).
 */
export function applyManagedKeys(block: Record<string, unknown>, source: SandboxLayerSource, locks: ManagedLocks, report: LayerReport): Record<string, unknown> {
  const managed = source === 'policy';
  const out = { ...block };
  const net = isObj(out['network']) ? { ...out['network'] } : undefined;
  const fs = isObj(out['filesystem']) ? { ...out['filesystem'] } : undefined;
  for (const [sub, key] of [
    [net, 'allowManagedDomainsOnly'],
    [fs, 'allowManagedReadPathsOnly'],
  ] as const) {
    if (!sub || sub[key] === undefined) continue;
    const v = sub[key];
    const path = `sandbox.${sub === net ? 'network' : 'filesystem'}.${key}`;
    if (typeof v !== 'boolean') {
      report.invalid(`${path}: expected a boolean, got ${shown(v)}; ${managed ? 'read as true (its restrictive value) until it is fixed' : 'ignored (it is honoured from managed settings only)'}`);
    } else if (!managed) report.ignored(`${path} (honoured from managed settings only)`);
    if (managed) sub[key] = lockValue(v);
    else delete sub[key];
  }
  if (fs && fs['disabled'] !== undefined) {
    const v = fs['disabled'];
    if (typeof v !== 'boolean') {
      report.invalid(`sandbox.filesystem.disabled: expected a boolean, got ${shown(v)}; read as false (filesystem isolation stays on) until it is fixed`);
      fs['disabled'] = false;
    } else if (v && source === 'project') {
      report.ignored("sandbox.filesystem.disabled (not honoured from a repository's file)");
      delete fs['disabled'];
    } else if (v && !managed && locks.filesystemPinned) {
      report.ignored('sandbox.filesystem.disabled (managed settings configure sandbox.filesystem: only they can turn it off)');
      delete fs['disabled'];
    }
  }
  if (!managed && locks.domainsOnly && net) {
    for (const k of ['allowedDomains', 'httpProxyPort', 'socksProxyPort']) {
      if (net[k] === undefined) continue;
      report.ignored(`sandbox.network.${k} (managed settings set allowManagedDomainsOnly)`);
      delete net[k];
    }
  }
  if (!managed && locks.readPathsOnly && fs && fs['allowRead'] !== undefined) {
    report.ignored('sandbox.filesystem.allowRead (managed settings set allowManagedReadPathsOnly)');
    delete fs['allowRead'];
  }
  if (net) out['network'] = net;
  if (fs) out['filesystem'] = fs;
  return out;
}

/**
 * The SDK's managedSettings `sandbox` block as Claude Code keeps it (its policy tier takes restrictive values
 * only): `filesystem.disabled: true` is dropped (measured: it does not turn filesystem isolation off), the rest
 * kept for the checks above. Returns the block and the dropped keys.
 */
export function restrictiveSandbox(v: unknown): { kept: unknown; dropped: string[] } {
  if (!isObj(v) || !isObj(v['filesystem']) || v['filesystem']['disabled'] !== true) return { kept: v, dropped: [] };
  const { disabled: _d, ...fs } = v['filesystem'];
  return { kept: { ...v, filesystem: fs }, dropped: ['sandbox.filesystem.disabled'] };
}
