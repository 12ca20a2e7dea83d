// The `sandbox` block of Claude Code's settings (what the SDK's `sandbox` option becomes inside `--settings`),
// read into what agentd enforces. `resolveSandboxSettings` is the one reader: it takes the merged block (the
// settings layers merged by mergeSandboxBlocks) and returns the command sandbox's configuration, nothing when the
// sandbox is off, or an error for a value agentd cannot honour (nothing fails open). `credentials`,
// `network.tlsTerminate` and `ripgrep` (credentials.ts) and the keys whose meaning depends on the layer —
// `network.allowManagedDomainsOnly`, `filesystem.allowManagedReadPathsOnly`, `filesystem.disabled` (managed.ts) —
// are checked layer by layer as they are merged: a value of the wrong type there is a warning naming the file,
// not a stop.
import * as z from 'zod/mini';
import { type LayerReport, type SandboxCredentials, type TlsTerminate, checkCredentials, checkTlsTerminate, settleCredentials } from './credentials.js';
import { type SandboxLayerSource, applyManagedKeys, managedLocks } from './managed.js';

const strings = z.lazy(() => z.optional(z.array(z.string())));
const flag = z.lazy(() => z.optional(z.boolean()));

/** The keys agentd reads; unknown ones are ignored (the SDK's schema is loose too). credentials,
 *  network.tlsTerminate and ripgrep are checked by hand (checkLayer), entry by entry; the managed locks and
 *  filesystem.disabled by managed.ts, which leaves them booleans. */
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
      allowManagedDomainsOnly: flag,
      allowUnixSockets: strings,
      allowAllUnixSockets: flag,
      allowLocalBinding: flag,
      httpProxyPort: z.optional(z.number()),
      socksProxyPort: z.optional(z.number()),
      tlsTerminate: z.optional(z.unknown()),
    }),
  ),
  credentials: z.optional(z.unknown()),
  ripgrep: z.optional(z.unknown()),
  filesystem: z.optional(
    z.looseObject({
      allowWrite: strings,
      denyWrite: strings,
      denyRead: strings,
      allowRead: strings,
      allowManagedReadPathsOnly: flag,
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
    /** Managed settings allow only their own hosts (managed.ts): a host off the list is refused with Claude Code's reason. */
    allowManagedDomainsOnly?: true;
    allowUnixSockets?: string[];
    allowAllUnixSockets?: boolean;
    allowLocalBinding?: boolean;
    httpProxyPort?: number;
    socksProxyPort?: number;
    /** The proxy terminates TLS (credentials.ts): from a file the host wrote only. */
    tlsTerminate?: TlsTerminate;
  };
  /** `disabled`: no filesystem rules for sandboxed commands (the network stays confined; managed.ts says who may set it). */
  filesystem: { allowWrite: string[]; denyWrite: string[]; denyRead: string[]; allowRead: string[]; disabled?: true };
  /** Files and variables sandboxed commands may not read, or see masked (credentials.ts). */
  credentials?: SandboxCredentials;
  /** The rg the runtime scans with, as a file the host wrote names it; otherwise tools/ripgrep.ts finds one. */
  ripgrep?: RipgrepCommand;
  enableWeakerNestedSandbox?: boolean;
  allowNestedUserNamespaces?: boolean;
  bwrapPath?: string;
  socatPath?: string;
}

/** `sandbox.ripgrep` (Claude Code's key): the program the runtime runs for its scan, and its leading arguments. */
export interface RipgrepCommand {
  command: string;
  args?: string[];
}

/** `notes`: what the merged credentials lost to a deny of the same thing (settleCredentials), for the log. */
export type SandboxSettingsResult = { ok: true; settings: CommandSandboxSettings | undefined; notes?: string[] } | { ok: false; message: string };

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
 * which Claude Code adds to the sandbox's network allow-list (under allowManagedDomainsOnly, the caller passes
 * those of managed rules only: managed.ts managedDomainsOnly).
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
  const net = s.network ?? {};
  const fs = s.filesystem ?? {};
  // Checked again (as for the layers: merged ones come out as they went in); a direct caller's problems are notes.
  const notes: string[] = [];
  const report: LayerReport = { invalid: (w) => notes.push(w), ignored: (w) => notes.push(w) };
  const { credentials: raw, tlsTerminate: tls, ripgrep } = checkedKeys(s, true, report);
  const settled = raw ? settleCredentials(raw, fs.denyRead ?? []) : undefined;
  if (settled) notes.push(...settled.notes);
  const credentials = settled?.credentials;
  if (credentials && !tls && [...credentials.files, ...credentials.envVars].some((e) => e.mode === 'mask')) {
    // What Claude Code says in the same case (measured): the proxy cannot swap the sentinel on HTTPS.
    notes.push('sandbox.credentials has mask entries but sandbox.network.tlsTerminate is not set: sandboxed commands see only the sentinel, and the proxy cannot put the real value into HTTPS requests (set network.tlsTerminate, or allowPlaintextInject for plain HTTP)');
  }
  return {
    ok: true,
    ...(notes.length ? { notes } : {}),
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
        ...(net.allowManagedDomainsOnly === true ? { allowManagedDomainsOnly: true as const } : {}),
        ...(net.allowUnixSockets ? { allowUnixSockets: net.allowUnixSockets } : {}),
        ...(net.allowAllUnixSockets !== undefined ? { allowAllUnixSockets: net.allowAllUnixSockets } : {}),
        ...(net.allowLocalBinding !== undefined ? { allowLocalBinding: net.allowLocalBinding } : {}),
        ...(net.httpProxyPort !== undefined ? { httpProxyPort: net.httpProxyPort } : {}),
        ...(net.socksProxyPort !== undefined ? { socksProxyPort: net.socksProxyPort } : {}),
        ...(tls ? { tlsTerminate: tls } : {}),
      },
      filesystem: {
        allowWrite: [...(fs.allowWrite ?? [])],
        denyWrite: [...(fs.denyWrite ?? [])],
        denyRead: [...(fs.denyRead ?? [])],
        allowRead: [...(fs.allowRead ?? [])],
        ...(fs.disabled === true ? { disabled: true as const } : {}),
      },
      ...(credentials ? { credentials } : {}),
      ...(ripgrep ? { ripgrep } : {}),
      ...(s.enableWeakerNestedSandbox !== undefined ? { enableWeakerNestedSandbox: s.enableWeakerNestedSandbox } : {}),
      ...(s.allowNestedUserNamespaces !== undefined ? { allowNestedUserNamespaces: s.allowNestedUserNamespaces } : {}),
      ...(s.bwrapPath !== undefined ? { bwrapPath: s.bwrapPath } : {}),
      ...(s.socatPath !== undefined ? { socatPath: s.socatPath } : {}),
    },
  };
}

/** One settings layer's `sandbox` block, where it came from, and whether the host wrote it (false: a repository's). */
export interface SandboxLayer {
  block: unknown;
  source: SandboxLayerSource;
  trusted: boolean;
}

/** What one layer lost (`ignored`) and which of its values had the wrong type (`invalid`, each says what was done instead). */
export interface SandboxLayerReport {
  ignored: string[];
  invalid: string[];
}

/**
 * Merges the `sandbox` blocks of the settings layers, lowest first (user, project, local, --settings, policy):
 * objects key by key, lists combined, a later scalar winning; `network.tlsTerminate`, `ripgrep` and the
 * credentials' `awsPairs` and `sigv4` are taken whole from the highest layer that sets them (as Claude Code). A
 * block from a file the host did not write (the project and local files) can only tighten: it may turn the
 * sandbox on and add denies (its credential masks become denies), nothing else; so can one the host wrote while
 * managed settings set allowManagedDomainsOnly. The managed locks and filesystem.disabled apply by layer
 * (managed.ts). `layers` says, in the order given, what each layer lost and its values of the wrong type; the
 * caller names the file.
 */
export function mergeSandboxBlocks(layers: readonly SandboxLayer[]): { merged: unknown; layers: SandboxLayerReport[] } {
  let merged: Record<string, unknown> | undefined;
  const locks = managedLocks(layers.filter((l) => l.source === 'policy').map((l) => l.block));
  const reports: SandboxLayerReport[] = [];
  for (const l of layers) {
    const r: SandboxLayerReport = { ignored: [], invalid: [] };
    reports.push(r);
    if (!isObj(l.block)) {
      r.invalid.push(`sandbox: expected an object, got ${Array.isArray(l.block) ? 'an array' : l.block === null ? 'null' : typeof l.block}; ignored`);
      continue;
    }
    const report: LayerReport = { invalid: (w) => r.invalid.push(w), ignored: (w) => r.ignored.push(w) };
    const trusted = l.trusted && !(l.source === 'project' && locks.domainsOnly);
    const applied = applyManagedKeys(l.block, l.source, locks, report);
    const block = checkLayer(trusted ? applied : tightenOnly(applied, report), trusted, report);
    merged = deepMerge(merged ?? {}, block, '');
  }
  return { merged, layers: reports };
}

interface CheckedKeys {
  credentials?: SandboxCredentials;
  tlsTerminate?: TlsTerminate;
  ripgrep?: RipgrepCommand;
}

/** The keys of one layer's block that are checked by hand (credentials.ts), as what they come to. */
function checkedKeys(block: Record<string, unknown>, trusted: boolean, report: LayerReport): CheckedKeys {
  const out: CheckedKeys = {};
  const c = checkCredentials(block['credentials'], trusted, report);
  if (c) out.credentials = c;
  const net = block['network'];
  const t = isObj(net) ? checkTlsTerminate(net['tlsTerminate'], trusted, report) : undefined;
  if (t) out.tlsTerminate = t;
  const r = block['ripgrep'];
  if (r === undefined) return out;
  if (isObj(r) && typeof r['command'] === 'string' && r['command'] !== '' && (r['args'] === undefined || (Array.isArray(r['args']) && r['args'].every((a) => typeof a === 'string')))) {
    out.ripgrep = { command: r['command'], ...(Array.isArray(r['args']) ? { args: r['args'].map(String) } : {}) };
  } else report.invalid(`sandbox.ripgrep: expected an object {command: string, args?: string[]}, got ${JSON.stringify(r)}; the ripgrep agentd finds is used`);
  return out;
}

/** One layer's block with the hand-checked keys replaced by what they come to (absent when nothing is left). */
function checkLayer(block: Record<string, unknown>, trusted: boolean, report: LayerReport): Record<string, unknown> {
  const k = checkedKeys(block, trusted, report);
  const { credentials: _c, ripgrep: _r, ...out } = block;
  if (k.credentials) out['credentials'] = k.credentials;
  if (k.ripgrep) out['ripgrep'] = k.ripgrep;
  const net = out['network'];
  if (isObj(net)) {
    const { tlsTerminate: _t, ...rest } = net;
    out['network'] = k.tlsTerminate ? { ...rest, tlsTerminate: k.tlsTerminate } : rest;
  }
  return out;
}

const TIGHTENING: Record<string, unknown> = { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false, autoAllowBashIfSandboxed: false };

function tightenOnly(b: Record<string, unknown>, report: LayerReport): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) {
    if (k in TIGHTENING) {
      if (v === TIGHTENING[k]) out[k] = v;
      else report.ignored(`sandbox.${k}: ${JSON.stringify(v)}`);
    } else if (k === 'credentials') {
      // Checked with the layer untrusted (credentials.ts): denies kept, masks made denies, the rest ignored.
      out[k] = v;
    } else if (k === 'filesystem' || k === 'network') {
      const keep = k === 'filesystem' ? ['denyWrite', 'denyRead'] : ['deniedDomains'];
      const sub: Record<string, unknown> = {};
      for (const [sk, sv] of Object.entries(typeof v === 'object' && v !== null ? v : {})) {
        // filesystem.disabled: false keeps the filesystem rules on, which only restricts.
        if (k === 'filesystem' && sk === 'disabled' && sv === false) sub[sk] = sv;
        else if (!keep.includes(sk)) report.ignored(`sandbox.${k}.${sk}`);
        else {
          const list = denyList(sv, `sandbox.${k}.${sk}`, report);
          if (list) sub[sk] = list;
        }
      }
      out[k] = sub;
    } else report.ignored(`sandbox.${k}`);
  }
  return out;
}

/**
 * A deny list of a repository's file as far as it can be read: its strings (a lone string is the one entry it
 * names). What is not a string is a warning, never a stop: a repository cannot stop the session with it.
 */
function denyList(v: unknown, path: string, report: LayerReport): string[] | undefined {
  if (typeof v === 'string') {
    report.invalid(`${path}: expected a list of strings, got a string; read as the one entry [${JSON.stringify(v)}]`);
    return [v];
  }
  if (!Array.isArray(v)) {
    report.invalid(`${path}: expected a list of strings, got ${v === null ? 'null' : typeof v}; ignored`);
    return undefined;
  }
  const strings = v.filter((e): e is string => typeof e === 'string');
  if (strings.length < v.length) report.invalid(`${path}: expected a list of strings; the entries that are not strings (${v.length - strings.length}) are ignored`);
  return strings;
}

/** Taken whole from the highest layer that sets them: a CA and its key, a program and its arguments, belong together. */
const WHOLE = new Set(['network.tlsTerminate', 'ripgrep', 'credentials.awsPairs', 'credentials.sigv4']);

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>, at: string): Record<string, unknown> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    const path = at ? `${at}.${k}` : k;
    if (WHOLE.has(path)) out[k] = v;
    else if (Array.isArray(v) && Array.isArray(prev)) out[k] = [...new Set<unknown>([...(prev as unknown[]), ...(v as unknown[])])];
    else if (isObj(v) && isObj(prev)) out[k] = deepMerge(prev, v, path);
    else out[k] = v;
  }
  return out;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
