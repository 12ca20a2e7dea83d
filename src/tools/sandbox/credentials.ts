// The `sandbox.credentials` and `sandbox.network.tlsTerminate` settings, checked one settings layer at a time
// (settings.ts mergeSandboxBlocks) into what @anthropic-ai/sandbox-runtime enforces:
//  - credentials.files / envVars: `deny` makes a file unreadable / a variable unset for sandboxed commands; `mask`
//    shows them a sentinel (a per-session fake value) and the runtime's proxy swaps it for the real value on the
//    way out to `injectHosts` (by default the allowed hosts), over HTTPS only with TLS termination;
//  - network.tlsTerminate: the proxy terminates TLS with a CA of its own (given, or made for the session) that the
//    sandboxed commands trust through the usual variables (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, CURL_CA_BUNDLE, …).
// Claude Code 2.1.330 passes both to the same runtime (measured, test/measure/sandbox-credentials.measure.ts).
//
// What agentd decides (README, Decisions):
//  - A repository's file (project, local) can only tighten: its `deny` entries hold, its `mask` entries become
//    `deny` (it cannot make the proxy inject a credential; Claude Code drops them and leaves the value readable),
//    and its `allowPlaintextInject`, `awsPairs`, `sigv4` and `tlsTerminate` are not honoured (as Claude Code).
//  - A value of the wrong type is a warning naming the file and the key, never a stop: an entry that names a file
//    or a variable but is otherwise malformed protects it anyway (`deny`, fail closed); one that names nothing is
//    dropped; a malformed loosening (allowPlaintextInject, awsPairs, sigv4, tlsTerminate) is dropped, which keeps
//    the stricter default. (Claude Code refuses to start on such a value in --settings and silently drops the
//    repository's whole `sandbox` block, `enabled` included, on one in the project file.)
export type CredentialMode = 'deny' | 'mask';
type NoMatch = 'warn' | 'deny' | 'error';

/** How a masked value is found and where it may be injected (the runtime's fields, passed as they are). */
export interface MaskOptions {
  extract?: string;
  onExtractNoMatch?: NoMatch;
  decode?: 'jwt';
  maskClaims?: string[];
  injectHosts?: string[];
}

export type CredentialFile = { mode: 'deny'; path: string } | ({ mode: 'mask'; path: string; maskDuplicates?: boolean } & MaskOptions);
export type CredentialEnvVar = { mode: 'deny'; name: string } | ({ mode: 'mask'; name: string } & MaskOptions);

type SigV4Policy = 'deny' | 'passthrough';
export interface SandboxCredentials {
  files: CredentialFile[];
  envVars: CredentialEnvVar[];
  allowPlaintextInject?: boolean;
  awsPairs?: Array<{ accessKeyIdVar: string; secretAccessKeyVar: string; sessionTokenVar?: string }>;
  sigv4?: { streaming?: SigV4Policy; presigned?: SigV4Policy; sigv4a?: SigV4Policy };
}

export interface TlsTerminate {
  caCertPath?: string;
  caKeyPath?: string;
}

/** Where a layer's problems go: `invalid` a wrong value (with the key), `ignored` what a repository may not set. */
export interface LayerReport {
  invalid: (what: string) => void;
  ignored: (what: string) => void;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
function typeName(v: unknown): string {
  if (v === undefined) return 'none';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`;
}

/** A mask's optional fields, or why they cannot be used as written. */
function maskOptions(e: Record<string, unknown>, kind: 'file' | 'env'): { ok: true; options: MaskOptions & { maskDuplicates?: boolean } } | { ok: false; why: string } {
  const o: MaskOptions & { maskDuplicates?: boolean } = {};
  if (e['extract'] !== undefined) {
    if (typeof e['extract'] !== 'string') return { ok: false, why: `extract: expected a regular expression string, got ${typeName(e['extract'])}` };
    try {
      new RegExp(e['extract'], 'g');
    } catch {
      return { ok: false, why: `extract: ${JSON.stringify(e['extract'])} is not a valid regular expression` };
    }
    o.extract = e['extract'];
  }
  const nm = e['onExtractNoMatch'];
  if (nm !== undefined) {
    if (nm !== 'warn' && nm !== 'deny' && nm !== 'error') return { ok: false, why: `onExtractNoMatch: expected "warn", "deny" or "error", got ${typeName(nm)}` };
    o.onExtractNoMatch = nm;
  }
  if (e['decode'] !== undefined) {
    if (e['decode'] !== 'jwt') return { ok: false, why: `decode: expected "jwt", got ${typeName(e['decode'])}` };
    o.decode = 'jwt';
  }
  if (e['maskClaims'] !== undefined) {
    if (!isStrings(e['maskClaims']) || e['maskClaims'].length === 0) return { ok: false, why: `maskClaims: expected a non-empty list of claim names, got ${typeName(e['maskClaims'])}` };
    if (o.decode === undefined) return { ok: false, why: 'maskClaims needs decode: "jwt"' };
    o.maskClaims = [...e['maskClaims']];
  }
  if (e['injectHosts'] !== undefined) {
    if (!isStrings(e['injectHosts'])) return { ok: false, why: `injectHosts: expected a list of host names, got ${typeName(e['injectHosts'])}` };
    o.injectHosts = [...e['injectHosts']];
  }
  if (kind === 'file' && e['maskDuplicates'] !== undefined) {
    if (typeof e['maskDuplicates'] !== 'boolean') return { ok: false, why: `maskDuplicates: expected a boolean, got ${typeName(e['maskDuplicates'])}` };
    o.maskDuplicates = e['maskDuplicates'];
  }
  // The runtime rejects these combinations for a variable (its decode path never reads them).
  if (kind === 'env' && o.decode !== undefined && o.extract !== undefined) return { ok: false, why: 'extract cannot be combined with decode' };
  if (kind === 'env' && o.decode !== undefined && (o.onExtractNoMatch === 'deny' || o.onExtractNoMatch === 'error')) return { ok: false, why: `onExtractNoMatch "${o.onExtractNoMatch}" cannot be honoured with decode` };
  return { ok: true, options: o };
}

/** One entry of `files` (key 'path') or `envVars` (key 'name'). */
function entry(e: unknown, where: string, key: 'path' | 'name', trusted: boolean, report: LayerReport): { mode: CredentialMode; id: string; options?: MaskOptions & { maskDuplicates?: boolean } } | undefined {
  const what = key === 'path' ? 'file' : 'variable';
  if (!isObj(e) || typeof e[key] !== 'string' || e[key] === '') {
    report.invalid(`${where}: expected an object with a ${key} (string) and a mode ("deny" or "mask"), got ${isObj(e) ? `${key} ${typeName(e[key])}` : typeName(e)}; it names no ${what} to protect, so it is dropped`);
    return undefined;
  }
  const id = e[key];
  const mode = e['mode'];
  if (mode !== 'deny' && mode !== 'mask') {
    report.invalid(`${where}.mode: expected "deny" or "mask", got ${typeName(mode)}; the ${what} ${id} is denied`);
    return { mode: 'deny', id };
  }
  if (mode === 'deny') return { mode, id };
  if (!trusted) {
    report.ignored(`${where} (${id}): mode "mask" from a repository's file is applied as "deny" (it cannot have the proxy inject a credential)`);
    return { mode: 'deny', id };
  }
  const m = maskOptions(e, key === 'path' ? 'file' : 'env');
  if (!m.ok) {
    report.invalid(`${where}.${m.why}; the ${what} ${id} is denied instead of masked`);
    return { mode: 'deny', id };
  }
  return { mode, id, options: m.options };
}

/** A layer's `sandbox.credentials`, checked: what the runtime can be given, or undefined when nothing is left. */
export function checkCredentials(v: unknown, trusted: boolean, report: LayerReport): SandboxCredentials | undefined {
  if (v === undefined) return undefined;
  if (!isObj(v)) {
    report.invalid(`sandbox.credentials: expected an object with files and envVars lists, got ${typeName(v)}; it names nothing to protect, so it is dropped`);
    return undefined;
  }
  const out: SandboxCredentials = { files: [], envVars: [] };
  for (const [list, key] of [['files', 'path'], ['envVars', 'name']] as const) {
    const raw = v[list];
    if (raw === undefined) continue;
    if (!Array.isArray(raw)) {
      report.invalid(`sandbox.credentials.${list}: expected a list, got ${typeName(raw)}; dropped`);
      continue;
    }
    raw.forEach((e: unknown, i) => {
      const r = entry(e, `sandbox.credentials.${list}[${i}]`, key, trusted, report);
      if (!r) return;
      if (list === 'files') out.files.push(r.mode === 'deny' ? { mode: 'deny', path: r.id } : { mode: 'mask', path: r.id, ...r.options });
      else {
        const { maskDuplicates: _unused, ...opts } = r.options ?? {};
        out.envVars.push(r.mode === 'deny' ? { mode: 'deny', name: r.id } : { mode: 'mask', name: r.id, ...opts });
      }
    });
  }
  // The keys that widen what a masked credential may do: only from a file the host wrote (as Claude Code).
  const loosening = ['allowPlaintextInject', 'awsPairs', 'sigv4'] as const;
  for (const k of loosening) {
    const val = v[k];
    if (val === undefined) continue;
    if (!trusted) {
      report.ignored(`sandbox.credentials.${k}`);
      continue;
    }
    if (k === 'allowPlaintextInject') {
      if (typeof val === 'boolean') out.allowPlaintextInject = val;
      else report.invalid(`sandbox.credentials.allowPlaintextInject: expected a boolean, got ${typeName(val)}; credentials are not injected over plain HTTP`);
    } else if (k === 'awsPairs') {
      const ok = Array.isArray(val) && val.every((p) => isObj(p) && typeof p['accessKeyIdVar'] === 'string' && typeof p['secretAccessKeyVar'] === 'string' && (p['sessionTokenVar'] === undefined || typeof p['sessionTokenVar'] === 'string'));
      if (ok) out.awsPairs = (val as Array<Record<string, string>>).map((p) => ({ accessKeyIdVar: p['accessKeyIdVar'] as string, secretAccessKeyVar: p['secretAccessKeyVar'] as string, ...(p['sessionTokenVar'] !== undefined ? { sessionTokenVar: p['sessionTokenVar'] } : {}) }));
      else report.invalid(`sandbox.credentials.awsPairs: expected a list of {accessKeyIdVar: string, secretAccessKeyVar: string, sessionTokenVar?: string}, got ${typeName(val)}; no request is re-signed`);
    } else {
      const policy = (x: unknown): x is SigV4Policy => x === 'deny' || x === 'passthrough';
      if (isObj(val) && ['streaming', 'presigned', 'sigv4a'].every((f) => val[f] === undefined || policy(val[f]))) {
        out.sigv4 = {};
        for (const f of ['streaming', 'presigned', 'sigv4a'] as const) if (policy(val[f])) out.sigv4[f] = val[f];
      } else report.invalid(`sandbox.credentials.sigv4: expected {streaming?, presigned?, sigv4a?} each "deny" or "passthrough", got ${typeName(val)}; every such request is denied`);
    }
  }
  const any = out.files.length > 0 || out.envVars.length > 0 || out.allowPlaintextInject !== undefined || out.awsPairs !== undefined || out.sigv4 !== undefined;
  return any ? out : undefined;
}

/** A layer's `sandbox.network.tlsTerminate`, checked (a repository's is not honoured, as in Claude Code). */
export function checkTlsTerminate(v: unknown, trusted: boolean, report: LayerReport): TlsTerminate | undefined {
  if (v === undefined) return undefined;
  if (!trusted) {
    report.ignored('sandbox.network.tlsTerminate');
    return undefined;
  }
  if (!isObj(v) || (v['caCertPath'] !== undefined && typeof v['caCertPath'] !== 'string') || (v['caKeyPath'] !== undefined && typeof v['caKeyPath'] !== 'string')) {
    const got = isObj(v) ? `caCertPath ${typeName(v['caCertPath'])}, caKeyPath ${typeName(v['caKeyPath'])}` : typeName(v);
    report.invalid(`sandbox.network.tlsTerminate: expected an object {caCertPath?: string, caKeyPath?: string}, got ${got}; TLS termination stays off`);
    return undefined;
  }
  return { ...(typeof v['caCertPath'] === 'string' ? { caCertPath: v['caCertPath'] } : {}), ...(typeof v['caKeyPath'] === 'string' ? { caKeyPath: v['caKeyPath'] } : {}) };
}

/**
 * The merged credentials as the runtime gets them: one entry per file and per variable — a `deny` from any layer
 * wins over a `mask` of the same one, and of two masks the higher layer's (the later) wins — and a masked file
 * under a literal `filesystem.denyRead` path left to that deny (masking would make a sentinel of it readable).
 * `notes` says what was dropped.
 */
export function settleCredentials(c: SandboxCredentials, denyRead: readonly string[]): { credentials: SandboxCredentials; notes: string[] } {
  const notes: string[] = [];
  const settle = <T extends { mode: CredentialMode }>(list: readonly T[], id: (e: T) => string, what: string): Map<string, T> => {
    const out = new Map<string, T>();
    for (const e of list) {
      const prev = out.get(id(e));
      if (prev?.mode === 'deny') {
        if (e.mode === 'mask') notes.push(`sandbox.credentials.${what}: the mask of ${id(e)} is dropped: a deny entry names the same one`);
        continue;
      }
      if (prev?.mode === 'mask' && e.mode === 'deny') notes.push(`sandbox.credentials.${what}: the mask of ${id(e)} is dropped: a deny entry names the same one`);
      out.set(id(e), e);
    }
    return out;
  };
  const files = settle(c.files, (f) => f.path, 'files');
  const envVars = settle(c.envVars, (e) => e.name, 'envVars');
  const under = (p: string, d: string): boolean => !/[*?[\]{}]/.test(d) && (p === d || p.startsWith(d.endsWith('/') ? d : `${d}/`));
  for (const [p, f] of files) {
    const by = f.mode === 'mask' ? denyRead.find((d) => under(p, d)) : undefined;
    if (by === undefined) continue;
    notes.push(`sandbox.credentials.files: the mask of ${p} is dropped: filesystem.denyRead ${by} covers it`);
    files.delete(p);
  }
  return { credentials: { ...c, files: [...files.values()], envVars: [...envVars.values()] }, notes };
}
