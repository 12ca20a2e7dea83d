// The `sandbox` block of Claude Code's settings (what the SDK's `sandbox` option becomes inside `--settings`),
// read into what agentd enforces. `resolveSandboxSettings` is the one reader: it takes the merged block (the
// settings layers merged by the caller) and returns the command sandbox's configuration, nothing when the
// sandbox is off, or an error for a value agentd cannot honour (nothing fails open). `credentials`,
// `network.tlsTerminate` and `ripgrep` are checked layer by layer as they are merged (credentials.ts): a value of
// the wrong type there is a warning naming the file, not a stop.
import * as z from 'zod/mini';
import { type LayerReport, type SandboxCredentials, type TlsTerminate, checkCredentials, checkTlsTerminate, settleCredentials } from './credentials.js';

const strings = z.lazy(() => z.optional(z.array(z.string())));
const flag = z.lazy(() => z.optional(z.boolean()));

/** The keys agentd reads; unknown ones are ignored (the SDK's schema is loose too), security ones are refused below.
 *  credentials, network.tlsTerminate and ripgrep are checked by hand (checkLayer), entry by entry. */
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
    /** The proxy terminates TLS (credentials.ts): from a file the host wrote only. */
    tlsTerminate?: TlsTerminate;
  };
  filesystem: { allowWrite: string[]; denyWrite: string[]; denyRead: string[]; allowRead: string[] };
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

/** Security-relevant keys agentd does not implement: refused when the sandbox is on, never silently dropped. */
const UNSUPPORTED: ReadonlyArray<{ path: readonly string[]; why: string }> = [
  { path: ['filesystem', 'allowManagedReadPathsOnly'], why: 'managed read paths are not implemented' },
  { path: ['network', 'allowManagedDomainsOnly'], why: 'managed domain lists are not implemented' },
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
        ...(net.allowUnixSockets ? { allowUnixSockets: net.allowUnixSockets } : {}),
        ...(net.allowAllUnixSockets !== undefined ? { allowAllUnixSockets: net.allowAllUnixSockets } : {}),
        ...(net.allowLocalBinding !== undefined ? { allowLocalBinding: net.allowLocalBinding } : {}),
        ...(net.httpProxyPort !== undefined ? { httpProxyPort: net.httpProxyPort } : {}),
        ...(net.socksProxyPort !== undefined ? { socksProxyPort: net.socksProxyPort } : {}),
        ...(tls ? { tlsTerminate: tls } : {}),
      },
      filesystem: { allowWrite: [...(fs.allowWrite ?? [])], denyWrite: [...(fs.denyWrite ?? [])], denyRead: [...(fs.denyRead ?? [])], allowRead: [...(fs.allowRead ?? [])] },
      ...(credentials ? { credentials } : {}),
      ...(ripgrep ? { ripgrep } : {}),
      ...(s.enableWeakerNestedSandbox !== undefined ? { enableWeakerNestedSandbox: s.enableWeakerNestedSandbox } : {}),
      ...(s.allowNestedUserNamespaces !== undefined ? { allowNestedUserNamespaces: s.allowNestedUserNamespaces } : {}),
      ...(s.bwrapPath !== undefined ? { bwrapPath: s.bwrapPath } : {}),
      ...(s.socatPath !== undefined ? { socatPath: s.socatPath } : {}),
    },
  };
}

/**
 * Merges the `sandbox` blocks of the settings layers, lowest first (user, project, local, --settings): objects
 * key by key, lists combined, a later scalar winning; `network.tlsTerminate`, `ripgrep` and the credentials'
 * `awsPairs` and `sigv4` are taken whole from the highest layer that sets them (as Claude Code). A block from a
 * file the host did not write (the project and local files) can only tighten: it may turn the sandbox on and add
 * denies (its credential masks become denies), nothing else. `invalid` lists values of the wrong type (each says
 * what was done instead); the caller names the file.
 */
export function mergeSandboxBlocks(layers: ReadonlyArray<{ block: unknown; trusted: boolean }>): { merged: unknown; ignored: string[]; invalid: string[] } {
  let merged: Record<string, unknown> | undefined;
  const ignored: string[] = [];
  const invalid: string[] = [];
  const report: LayerReport = { invalid: (w) => invalid.push(w), ignored: (w) => ignored.push(w) };
  for (const l of layers) {
    if (!isObj(l.block)) continue;
    const block = checkLayer(l.trusted ? l.block : tightenOnly(l.block, ignored), l.trusted, report);
    merged = deepMerge(merged ?? {}, block, '');
  }
  return { merged, ignored, invalid };
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

function tightenOnly(b: Record<string, unknown>, ignored: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) {
    if (k in TIGHTENING) {
      if (v === TIGHTENING[k]) out[k] = v;
      else ignored.push(`sandbox.${k}: ${JSON.stringify(v)}`);
    } else if (k === 'credentials') {
      // Checked with the layer untrusted (credentials.ts): denies kept, masks made denies, the rest ignored.
      out[k] = v;
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
