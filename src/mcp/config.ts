// MCP server configuration: where it comes from (--mcp-config, .mcp.json, Claude Code's ~/.claude.json), what a
// server entry may be, and `${VAR}` / `${VAR:-default}` expansion. Pure parsing: nothing here connects.
//
// A repository's servers (.mcp.json) are data until approved: the repository is trusted, or the user's own settings
// approve them (enableAllProjectMcpServers, enabledMcpjsonServers: exact names, as Claude Code 2.1.330 matches them).
// Until then a server is `withheld`: listed, never started, its config not even expanded. Expansion never yields
// agentd's own credentials (ANTHROPIC_API_KEY, …, in any server's config: Claude Code 2.1.330 expands them to
// nothing in every scope, measured), nor, for a project server, the cloud credentials tools get (AWS_*, …): such a
// variable expands to its default, else to nothing.
//
// Bad input, decided after driving Claude Code 2.1.330 (README "Decisions"): an --mcp-config value that is neither
// JSON nor a readable file is a start-up error naming it (Claude Code: "Invalid MCP configuration"); one server
// entry that is not a valid config (unknown `type`, no `command`, …) makes only that server `failed` with the
// reason (Claude Code drops it from the list silently); the others still connect.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as z from 'zod/mini';
import type { GlobalConfigRead } from '../config/global-config.js';
import { CLOUD_CREDENTIAL_NAMES, SECRET_ENV_NAMES, extraSecretNames } from '../util/secrets.js';

// Per-tool permission policies (`tools: [{name, permission_policy?, org_max_permission?}]`) are read leniently, as
// the SDK documents: an entry without a string name is dropped, a value that is not a list is absent
// (toolPolicies below); a malformed list never makes the whole server invalid.
const ToolPolicies = z.lazy(() => z.optional(z.unknown()));
const Timeout = z.lazy(() => z.optional(z.number()));

export const StdioServerConfig = z.lazy(() => z.looseObject({
  type: z.optional(z.literal('stdio')),
  command: z.string().check(z.minLength(1)),
  args: z.optional(z.array(z.string())),
  env: z.optional(z.record(z.string(), z.string())),
  tools: ToolPolicies,
  timeout: Timeout,
}));
export const RemoteServerConfig = z.lazy(() => z.looseObject({
  type: z.enum(['http', 'sse']),
  url: z.string().check(z.minLength(1)),
  headers: z.optional(z.record(z.string(), z.string())),
  tools: ToolPolicies,
  timeout: Timeout,
}));
export const SdkServerConfig = z.lazy(() => z.looseObject({
  type: z.literal('sdk'),
  name: z.optional(z.string()),
  tools: ToolPolicies,
  timeout: Timeout,
}));

export type StdioServerConfig = z.infer<typeof StdioServerConfig>;
export type RemoteServerConfig = z.infer<typeof RemoteServerConfig>;
export type SdkServerConfig = z.infer<typeof SdkServerConfig>;

/** Where a server's definition came from: the `source`/`scope` Claude Code reports. */
export type McpSource = 'sdk' | 'dynamic' | 'project' | 'user' | 'local' | 'plugin';

/** What a host's per-tool policy asks of a call (the strictest of `permission_policy` and `org_max_permission`). */
export type McpToolPolicy = 'always_allow' | 'always_ask' | 'always_deny';

const STRICTNESS: Record<McpToolPolicy, number> = { always_allow: 0, always_ask: 1, always_deny: 2 };

/**
 * A server's `tools` policy list, by raw tool name. As the SDK documents: `always_ask` asks the host before each
 * call even where a rule or the mode would allow it; `always_deny` denies every call; a policy that is none of
 * the three asks; `always_allow` counts for remote servers only (an SDK server's host grants with allowedTools
 * or canUseTool). An org ceiling tightens: `blocked` denies, `ask` asks.
 */
export function toolPolicies(tools: unknown, kind: 'sdk' | 'remote' | 'stdio'): Map<string, McpToolPolicy> {
  const out = new Map<string, McpToolPolicy>();
  if (!Array.isArray(tools)) return out;
  for (const raw of tools) {
    if (typeof raw !== 'object' || raw === null) continue;
    const entry = raw as Record<string, unknown>;
    const name = entry['name'];
    if (typeof name !== 'string') continue;
    const candidates: McpToolPolicy[] = [];
    const p = entry['permission_policy'];
    if (p !== undefined) candidates.push(p === 'always_allow' || p === 'always_ask' || p === 'always_deny' ? p : 'always_ask');
    const org = entry['org_max_permission'];
    if (org !== undefined) candidates.push(org === 'allow' ? 'always_allow' : org === 'blocked' ? 'always_deny' : 'always_ask');
    const usable = candidates.filter((c) => c !== 'always_allow' || kind === 'remote');
    if (usable.length === 0) continue;
    const strictest = usable.reduce((a, b) => (STRICTNESS[b] > STRICTNESS[a] ? b : a));
    const before = out.get(name);
    out.set(name, before !== undefined && STRICTNESS[before] > STRICTNESS[strictest] ? before : strictest);
  }
  return out;
}

export type McpServerSpec =
  | { kind: 'stdio'; name: string; source: McpSource; config: StdioServerConfig; missingEnv?: string[] }
  | { kind: 'remote'; name: string; source: McpSource; config: RemoteServerConfig; missingEnv?: string[] }
  | { kind: 'sdk'; name: string; source: 'sdk'; config: SdkServerConfig }
  /** An entry that is not a valid server config: reported as `failed` with this reason, never connected. */
  | { kind: 'invalid'; name: string; source: McpSource; reason: string; config: unknown }
  /** A repository's server nobody approved: reported as `disabled` with this reason, never connected. */
  | { kind: 'withheld'; name: string; source: McpSource; reason: string; config: unknown };

export class McpConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `${VAR}` and `${VAR:-default}` as Claude Code expands them; an unset variable without a default stays as written.
 * A `withheld` variable (a credential) is never read: it expands to its default, else to nothing.
 */
export function expandEnv(text: string, env: Env, missing?: Set<string>, withheld?: ReadonlySet<string>): string {
  return text.replace(/\$\{([^}:]+)(?::-([^}]*))?\}/g, (whole, name: string, def: string | undefined) => {
    if (withheld?.has(name)) return def ?? '';
    const v = env[name];
    if (v !== undefined) return v;
    if (def !== undefined) return def;
    missing?.add(name);
    return whole;
  });
}

function expandAll(value: unknown, env: Env, missing: Set<string>, withheld: ReadonlySet<string>): unknown {
  if (typeof value === 'string') return expandEnv(value, env, missing, withheld);
  if (Array.isArray(value)) return value.map((v) => expandAll(v, env, missing, withheld));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandAll(v, env, missing, withheld)]));
  }
  return value;
}

/** The variables a server's config may not expand: agentd's credentials, and for a project server the cloud ones. */
export function credentialNames(source: McpSource, env: Env): ReadonlySet<string> {
  return new Set<string>([...SECRET_ENV_NAMES, ...extraSecretNames(env), ...(source === 'project' ? CLOUD_CREDENTIAL_NAMES : [])]);
}

function issues(e: z.core.$ZodError): string {
  return e.issues.map((i) => `${i.path.join('.') || '(entry)'}: ${i.message}`).join('; ');
}

/** One entry of an `mcpServers` object, validated and expanded. */
export function parseServerEntry(name: string, raw: unknown, source: McpSource, env: Env): McpServerSpec {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { kind: 'invalid', name, source, reason: 'the server config is not a JSON object', config: raw };
  const type = (raw as Record<string, unknown>)['type'];
  if (type === 'sdk') {
    const r = SdkServerConfig.safeParse(raw);
    return r.success ? { kind: 'sdk', name, source: 'sdk', config: r.data } : { kind: 'invalid', name, source, reason: issues(r.error), config: raw };
  }
  const missing = new Set<string>();
  const expanded = expandAll(raw, env, missing, credentialNames(source, env));
  const schema = type === undefined || type === 'stdio' ? StdioServerConfig : type === 'http' || type === 'sse' ? RemoteServerConfig : undefined;
  if (!schema) return { kind: 'invalid', name, source, reason: `unknown server type ${JSON.stringify(type)} (agentd knows stdio, http, sse and sdk)`, config: raw };
  const r = schema.safeParse(expanded);
  if (!r.success) return { kind: 'invalid', name, source, reason: `invalid ${String(type ?? 'stdio')} server config: ${issues(r.error)}`, config: raw };
  // As Claude Code: a server naming an unset variable is still tried (with the text as written); the names are
  // kept for the failure reason.
  const missingEnv = missing.size ? { missingEnv: [...missing] } : {};
  return 'command' in r.data
    ? { kind: 'stdio', name, source, config: r.data as StdioServerConfig, ...missingEnv }
    : { kind: 'remote', name, source, config: r.data as RemoteServerConfig, ...missingEnv };
}

function serversObject(doc: unknown, where: string): Record<string, unknown> {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new McpConfigError(`Invalid MCP configuration in ${where}: not a JSON object.`);
  const servers = (doc as Record<string, unknown>)['mcpServers'];
  if (servers === undefined) return {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) throw new McpConfigError(`Invalid MCP configuration in ${where}: "mcpServers" is not an object.`);
  return servers as Record<string, unknown>;
}

/**
 * One `--mcp-config` value: inline JSON (starts with `{`) or a path to a JSON file. Anything else is a start-up
 * error that names it.
 */
export function parseMcpConfigFlag(value: string, opts: { cwd: string; env: Env }): McpServerSpec[] {
  const t = value.trim();
  let text: string;
  let where: string;
  if (t.startsWith('{')) {
    text = t;
    where = '--mcp-config';
  } else {
    where = resolve(opts.cwd, t);
    try {
      text = readFileSync(where, 'utf8');
    } catch (e) {
      throw new McpConfigError(`Invalid MCP configuration: --mcp-config ${JSON.stringify(value)} is neither JSON nor a readable file (${(e as Error).message}).`);
    }
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new McpConfigError(`Invalid MCP configuration: ${where} is not valid JSON (${(e as Error).message}).`);
  }
  return Object.entries(serversObject(doc, where)).map(([name, raw]) => parseServerEntry(name, raw, 'dynamic', opts.env));
}

/** The global config file's JSON (read now unless the caller read it), undefined when there is none. */
function globalDoc(i: McpConfigInputs): unknown {
  const g = i.globalConfig;
  if (g === undefined) return readJson(i.globalConfigFile);
  if (g.kind === 'missing') return undefined;
  if (g.kind === 'ok') return g.value;
  throw new McpConfigError(g.why === 'json' ? `Invalid MCP configuration: ${i.globalConfigFile} is not valid JSON (${g.message}).` : `Cannot read MCP configuration ${i.globalConfigFile}: ${g.message}`);
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new McpConfigError(`Cannot read MCP configuration ${path}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new McpConfigError(`Invalid MCP configuration: ${path} is not valid JSON (${(e as Error).message}).`);
  }
}

export interface McpConfigInputs {
  /** `--mcp-config` values, in order. */
  flags: readonly string[];
  /** `--strict-mcp-config`: only the flag's servers. */
  strict: boolean;
  /** Which of Claude Code's configuration scopes to read (`--setting-sources`). */
  sources: ReadonlyArray<'user' | 'project' | 'local'>;
  cwd: string;
  /** Claude Code's global config file ($CLAUDE_CONFIG_DIR/.claude.json or ~/.claude.json). */
  globalConfigFile: string;
  env: Env;
  /** `disabledMcpjsonServers` from the settings files: `.mcp.json` servers that are not started at all. */
  disabledProjectServers?: readonly string[];
  /**
   * Which `.mcp.json` servers may start: all when the repository is trusted or the user's settings say
   * enableAllProjectMcpServers, else those enabledMcpjsonServers names; the others are withheld with `why`.
   * Absent: all (callers that do not judge, such as tests of parsing).
   */
  projectApproval?: { all: boolean; names: readonly string[]; why: (name: string) => string };
  /** The global config file already read (config/global-config.ts), so it is not read twice. */
  globalConfig?: GlobalConfigRead;
  /**
   * Servers other parts contribute (plugins' `.mcp.json`): raw entries parsed as any other, after every
   * configured scope (a configured server of the same name wins); left out under --strict-mcp-config.
   */
  extra?: ReadonlyArray<{ name: string; config: unknown; source: McpSource }>;
}

/**
 * Every configured server, one per name. Precedence as Claude Code: --mcp-config (later flags win) over local
 * (~/.claude.json projects[cwd]) over project (.mcp.json) over user (~/.claude.json).
 */
export function resolveMcpServers(i: McpConfigInputs): McpServerSpec[] {
  const byName = new Map<string, McpServerSpec>();
  const put = (specs: McpServerSpec[]): void => {
    for (const s of specs) if (!byName.has(s.name)) byName.set(s.name, s);
  };
  for (const f of [...i.flags].reverse()) put(parseMcpConfigFlag(f, i));
  if (!i.strict) {
    const global = i.sources.includes('user') || i.sources.includes('local') ? globalDoc(i) : undefined;
    const g = typeof global === 'object' && global !== null ? (global as Record<string, unknown>) : {};
    if (i.sources.includes('local')) {
      const projects = g['projects'];
      const here = typeof projects === 'object' && projects !== null ? (projects as Record<string, unknown>)[i.cwd] : undefined;
      if (typeof here === 'object' && here !== null) {
        put(Object.entries(serversObject(here, `${i.globalConfigFile} (projects.${i.cwd})`)).map(([n, r]) => parseServerEntry(n, r, 'local', i.env)));
      }
    }
    if (i.sources.includes('project')) {
      const file = join(i.cwd, '.mcp.json');
      const doc = readJson(file);
      const disabled = new Set(i.disabledProjectServers ?? []);
      const a = i.projectApproval;
      const approved = (n: string): boolean => a === undefined || a.all || a.names.includes(n);
      // As Claude Code: a disabled project server is left out entirely (not listed).
      if (doc !== undefined) {
        put(
          Object.entries(serversObject(doc, file))
            .filter(([n]) => !disabled.has(n))
            .map(([n, r]): McpServerSpec => (approved(n) ? parseServerEntry(n, r, 'project', i.env) : { kind: 'withheld', name: n, source: 'project', reason: a?.why(n) ?? '', config: r })),
        );
      }
    }
    if (i.sources.includes('user') && global !== undefined) {
      put(Object.entries(serversObject(global, i.globalConfigFile)).map(([n, r]) => parseServerEntry(n, r, 'user', i.env)));
    }
  }
  if (!i.strict) put((i.extra ?? []).map((x) => parseServerEntry(x.name, x.config, x.source, i.env)));
  return [...byName.values()];
}
