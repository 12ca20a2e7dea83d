// The `sandbox` block of Claude Code's settings (what the SDK's `sandbox` option becomes inside `--settings`),
// read into what agentd enforces. `resolveSandboxSettings` is the one reader: it takes the merged block (the
// settings layers merged by the caller) and returns the command sandbox's configuration, nothing when the
// sandbox is off, or an error for a value agentd cannot honour (nothing fails open).
import * as z from 'zod/mini';

const strings = z.lazy(() => z.optional(z.array(z.string())));
const flag = z.lazy(() => z.optional(z.boolean()));

/** The keys agentd reads; unknown ones are ignored (the SDK's schema is loose too), security ones are refused below. */
export const SandboxSettingsSchema = z.lazy(() => z.looseObject({
  enabled: flag,
  failIfUnavailable: flag,
  autoAllowBashIfSandboxed: flag,
  allowUnsandboxedCommands: flag,
  excludedCommands: strings,
  network: z.optional(
    z.looseObject({
      allowedDomains: strings,
      deniedDomains: strings,
      strictAllowlist: flag,
      allowUnixSockets: strings,
      allowAllUnixSockets: flag,
      allowLocalBinding: flag,
      httpProxyPort: z.optional(z.number()),
      socksProxyPort: z.optional(z.number()),
    }),
  ),
  filesystem: z.optional(
    z.looseObject({
      allowWrite: strings,
      denyWrite: strings,
      denyRead: strings,
      allowRead: strings,
      disabled: flag,
    }),
  ),
  enableWeakerNestedSandbox: flag,
  allowNestedUserNamespaces: flag,
  bwrapPath: z.optional(z.string()),
  socatPath: z.optional(z.string()),
}));

/** What the command sandbox enforces (the resolved `sandbox` settings). */
export interface CommandSandboxSettings {
  /** Start-up fails when the sandbox cannot run. agentd's default is true (see README, Decisions). */
  failIfUnavailable: boolean;
  autoAllowBashIfSandboxed: boolean;
  /** Whether Bash's `dangerouslyDisableSandbox: true` may run a command outside (it still asks). */
  allowUnsandboxedCommands: boolean;
  /** Commands that run outside the sandbox (and go through the ordinary permission flow). */
  excludedCommands: string[];
  network: {
    allowedDomains: string[];
    deniedDomains: string[];
    strictAllowlist?: boolean;
    allowUnixSockets?: string[];
    allowAllUnixSockets?: boolean;
    allowLocalBinding?: boolean;
    httpProxyPort?: number;
    socksProxyPort?: number;
  };
  filesystem: { allowWrite: string[]; denyWrite: string[]; denyRead: string[]; allowRead: string[] };
  enableWeakerNestedSandbox?: boolean;
  allowNestedUserNamespaces?: boolean;
  bwrapPath?: string;
  socatPath?: string;
}

export type SandboxSettingsResult = { ok: true; settings: CommandSandboxSettings | undefined } | { ok: false; message: string };

/** Security-relevant keys agentd does not implement: refused when the sandbox is on, never silently dropped. */
const UNSUPPORTED: ReadonlyArray<{ path: readonly string[]; why: string }> = [
  { path: ['credentials'], why: 'credential masking is not implemented' },
  { path: ['filesystem', 'allowManagedReadPathsOnly'], why: 'managed read paths are not implemented' },
  { path: ['network', 'allowManagedDomainsOnly'], why: 'managed domain lists are not implemented' },
  { path: ['network', 'tlsTerminate'], why: 'TLS termination is not implemented' },
];

function at(v: unknown, path: readonly string[]): unknown {
  let cur = v;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/**
 * The one reader of the `sandbox` settings. `merged` is the block after the settings layers were merged
 * (undefined when no layer has one); `extraAllowedDomains` are the hosts of `WebFetch(domain:…)` allow rules,
 * which Claude Code adds to the sandbox's network allow-list.
 */
export function resolveSandboxSettings(merged: unknown, extraAllowedDomains: readonly string[] = []): SandboxSettingsResult {
  if (merged === undefined || merged === null) return { ok: true, settings: undefined };
  const r = SandboxSettingsSchema.safeParse(merged);
  if (!r.success) {
    // An invalid block with the sandbox on must not degrade to "off" (the SDK documents the same).
    const on = at(merged, ['enabled']) === true;
    const issues = r.error.issues.map((i) => `sandbox.${i.path.join('.')}: ${i.message}`).join('; ');
    return on || at(merged, ['enabled']) === undefined
      ? { ok: false, message: `The sandbox settings are invalid: ${issues}` }
      : { ok: true, settings: undefined };
  }
  const s = r.data;
  if (s.enabled !== true) return { ok: true, settings: undefined };
  for (const u of UNSUPPORTED) {
    if (at(s, u.path) !== undefined) return { ok: false, message: `sandbox.${u.path.join('.')} is set, but agentd cannot honour it (${u.why}); remove it or run Claude Code.` };
  }
  if (s.filesystem?.disabled === true) return { ok: false, message: 'sandbox.filesystem.disabled is set, but agentd always confines writes when the sandbox is on; remove it.' };
  const net = s.network ?? {};
  const fs = s.filesystem ?? {};
  return {
    ok: true,
    settings: {
      // agentd fails closed unless the settings opt out explicitly (Claude Code defaults to a warning).
      failIfUnavailable: s.failIfUnavailable !== false,
      autoAllowBashIfSandboxed: s.autoAllowBashIfSandboxed === true,
      allowUnsandboxedCommands: s.allowUnsandboxedCommands !== false,
      excludedCommands: [...(s.excludedCommands ?? [])],
      network: {
        allowedDomains: [...new Set([...(net.allowedDomains ?? []), ...(net.strictAllowlist ? [] : extraAllowedDomains)])],
        deniedDomains: [...(net.deniedDomains ?? [])],
        ...(net.strictAllowlist !== undefined ? { strictAllowlist: net.strictAllowlist } : {}),
        ...(net.allowUnixSockets ? { allowUnixSockets: net.allowUnixSockets } : {}),
        ...(net.allowAllUnixSockets !== undefined ? { allowAllUnixSockets: net.allowAllUnixSockets } : {}),
        ...(net.allowLocalBinding !== undefined ? { allowLocalBinding: net.allowLocalBinding } : {}),
        ...(net.httpProxyPort !== undefined ? { httpProxyPort: net.httpProxyPort } : {}),
        ...(net.socksProxyPort !== undefined ? { socksProxyPort: net.socksProxyPort } : {}),
      },
      filesystem: { allowWrite: [...(fs.allowWrite ?? [])], denyWrite: [...(fs.denyWrite ?? [])], denyRead: [...(fs.denyRead ?? [])], allowRead: [...(fs.allowRead ?? [])] },
      ...(s.enableWeakerNestedSandbox !== undefined ? { enableWeakerNestedSandbox: s.enableWeakerNestedSandbox } : {}),
      ...(s.allowNestedUserNamespaces !== undefined ? { allowNestedUserNamespaces: s.allowNestedUserNamespaces } : {}),
      ...(s.bwrapPath !== undefined ? { bwrapPath: s.bwrapPath } : {}),
      ...(s.socatPath !== undefined ? { socatPath: s.socatPath } : {}),
    },
  };
}

/**
 * Merges the `sandbox` blocks of the settings layers, lowest first (user, project, local, --settings): objects
 * key by key, lists combined, a later scalar winning. A block from a file the host did not write (the project
 * and local files) can only tighten: it may turn the sandbox on and add denies, nothing else.
 */
export function mergeSandboxBlocks(layers: ReadonlyArray<{ block: unknown; trusted: boolean }>): { merged: unknown; ignored: string[] } {
  let merged: Record<string, unknown> | undefined;
  const ignored: string[] = [];
  for (const l of layers) {
    if (typeof l.block !== 'object' || l.block === null || Array.isArray(l.block)) continue;
    const block = l.trusted ? (l.block as Record<string, unknown>) : tightenOnly(l.block as Record<string, unknown>, ignored);
    merged = deepMerge(merged ?? {}, block);
  }
  return { merged, ignored };
}

const TIGHTENING: Record<string, unknown> = { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false, autoAllowBashIfSandboxed: false };

function tightenOnly(b: Record<string, unknown>, ignored: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) {
    if (k in TIGHTENING) {
      if (v === TIGHTENING[k]) out[k] = v;
      else ignored.push(`sandbox.${k}: ${JSON.stringify(v)}`);
    } else if (k === 'filesystem' || k === 'network') {
      const keep = k === 'filesystem' ? ['denyWrite', 'denyRead'] : ['deniedDomains'];
      const sub: Record<string, unknown> = {};
      for (const [sk, sv] of Object.entries(typeof v === 'object' && v !== null ? v : {})) {
        if (keep.includes(sk)) sub[sk] = sv;
        else ignored.push(`sandbox.${k}.${sk}`);
      }
      out[k] = sub;
    } else ignored.push(`sandbox.${k}`);
  }
  return out;
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    if (Array.isArray(v) && Array.isArray(prev)) out[k] = [...new Set<unknown>([...(prev as unknown[]), ...(v as unknown[])])];
    else if (isObj(v) && isObj(prev)) out[k] = deepMerge(prev, v);
    else out[k] = v;
  }
  return out;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
