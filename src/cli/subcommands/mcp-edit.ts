// `agentd mcp add|add-json|remove`: the same edits Claude Code 2.1.330 makes to the same files (users script these):
// local → ~/.claude.json projects[cwd].mcpServers, project → ./.mcp.json, user → ~/.claude.json mcpServers.
// Messages, exit codes and file layout (2-space JSON, no trailing newline) follow the reference binary; every other
// key of the files is kept, and a file is replaced atomically (temporary file + rename), never half-written.
// A file that exists but is not a JSON object is refused (exit 1), never overwritten.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { globalConfigFile } from './global-config.js';
import type { McpScope } from './mcp.js';
import { peekJsonFile } from './settings-peek.js';
import { SUB_EXIT, type SubExit, type SubcommandIO, UsageError } from './types.js';
import { writeFileAtomic } from '../../util/atomic-write.js';

type Json = Record<string, unknown>;
const SCOPES: readonly McpScope[] = ['local', 'user', 'project'];
const OAUTH_FLAGS = new Set(['--client-id', '--client-secret', '--callback-port']);

export const ADD_HELP = [
  'Usage: agentd mcp add [options] <name> <commandOrUrl> [args...]',
  '',
  'Add an MCP server (written where Claude Code keeps it; sessions connect to it).',
  '',
  'Examples:',
  '  agentd mcp add --transport http sentry https://mcp.sentry.dev/mcp',
  '  agentd mcp add --transport http corridor https://app.corridor.dev/api/mcp --header "Authorization: Bearer ..."',
  '  agentd mcp add my-server -e API_KEY=xxx -- node ./my-server.js',
  '  agentd mcp add my-server -- my-command --some-flag arg1',
  '',
  'Options:',
  '  -e, --env <env...>           Set environment variables (e.g. -e KEY=value)',
  '  -H, --header <header...>     Set headers for HTTP/SSE servers (e.g. -H "X-Api-Key: abc123")',
  '  -h, --help                   Display help for command',
  '  -s, --scope <scope>          Configuration scope (local, user, or project) (default: "local")',
  '  -t, --transport <transport>  Transport type (stdio, sse, http). Defaults to stdio.',
  '',
  'Not available in agentd (exit 1): --client-id, --client-secret, --callback-port (OAuth).',
];
export const ADD_JSON_HELP = [
  'Usage: agentd mcp add-json [options] <name> <json>',
  '',
  'Add an MCP server (stdio, SSE or HTTP) with a JSON string, or - to read it from stdin',
  '',
  'Options:',
  '  -h, --help           Display help for command',
  '  -s, --scope <scope>  Configuration scope (local, user, or project) (default: "local")',
];
export const REMOVE_HELP = [
  'Usage: agentd mcp remove [options] <name>',
  '',
  'Remove an MCP server',
  '',
  'Options:',
  '  -h, --help           Display help for command',
  '  -s, --scope <scope>  Configuration scope (local, user, or project); if not set, removes it from whichever scope has it',
];

interface Parsed {
  help: boolean;
  scope?: string;
  transport?: string;
  env: string[];
  headers: string[];
  positionals: string[];
  oauth?: string;
}

/**
 * Commander's rules as Claude Code uses them: `-e`/`-H` are variadic (they take every following word up to the next
 * option, so `-e K=v -- cmd` needs the `--`), options may come after positionals, `--` ends options.
 */
function parse(args: readonly string[], allowed: ReadonlySet<string>): Parsed {
  const out: Parsed = { help: false, env: [], headers: [], positionals: [] };
  const long: Record<string, string> = { '-s': 'scope', '-t': 'transport', '-e': 'env', '-H': 'header', '-h': 'help' };
  for (let i = 0; i < args.length; i++) {
    const tok = args[i] as string;
    if (tok === '--') {
      out.positionals.push(...args.slice(i + 1));
      break;
    }
    if (!tok.startsWith('-') || tok === '-') {
      out.positionals.push(tok);
      continue;
    }
    // `--scope=user`, and commander's attached short form `-suser`.
    const attached = !tok.startsWith('--') && tok.length > 2;
    const eq = tok.startsWith('--') ? tok.indexOf('=') : attached ? 1 : -1;
    const flag = eq === -1 ? tok : tok.slice(0, eq + (attached ? 1 : 0));
    if (OAUTH_FLAGS.has(flag) && allowed.has('oauth')) {
      out.oauth = flag;
      if (flag !== '--client-secret' && eq === -1) i++;
      continue;
    }
    const name = flag.startsWith('--') ? flag.slice(2) : long[flag];
    if (name === undefined || !allowed.has(name)) throw new UsageError(`unknown option '${tok}'`);
    if (name === 'help') {
      out.help = true;
      continue;
    }
    const values: string[] = [];
    if (eq !== -1) values.push(tok.slice(eq + 1));
    else if (name === 'env' || name === 'header') {
      while (i + 1 < args.length && !(args[i + 1] as string).startsWith('-')) values.push(args[++i] as string);
    } else if (i + 1 < args.length) values.push(args[++i] as string);
    if (!values.length) throw new UsageError(`option '${flag} <${name}${name === 'env' || name === 'header' ? '...' : ''}>' argument missing`);
    if (name === 'env') out.env.push(...values);
    else if (name === 'header') out.headers.push(...values);
    else if (name === 'scope') out.scope = values[0];
    else out.transport = values[0];
  }
  return out;
}

class Refusal extends Error {}

function scopeOf(s: string | undefined): McpScope {
  if (s === undefined) return 'local';
  if ((SCOPES as readonly string[]).includes(s)) return s as McpScope;
  throw new Refusal(`Invalid scope: ${s}. Must be one of: local, user, project, dynamic, enterprise, claudeai, managed, agent`);
}

/** The file a scope lives in, read (or empty when absent), and where its `mcpServers` object is. */
interface Target {
  file: string;
  root: Json;
  servers: Json;
  /** For messages: Claude Code's `File modified:` suffix. */
  label: string;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function load(scope: McpScope, io: SubcommandIO): Target {
  const file = scope === 'project' ? join(io.cwd, '.mcp.json') : globalConfigFile(io);
  const p = peekJsonFile(file);
  if (p.kind === 'unreadable') throw new Refusal(`Cannot update ${file}: ${p.message}. Fix or remove it first.`);
  const root: Json = p.kind === 'ok' ? p.value : {};
  let holder = root;
  if (scope === 'local') {
    if (!isObject(root['projects'])) root['projects'] = {};
    const projects = root['projects'] as Json;
    if (!isObject(projects[io.cwd])) projects[io.cwd] = {};
    holder = projects[io.cwd] as Json;
  }
  if (!isObject(holder['mcpServers'])) holder['mcpServers'] = {};
  return { file, root, servers: holder['mcpServers'] as Json, label: scope === 'local' ? `${file} [project: ${io.cwd}]` : file };
}

/** Write to a sibling temporary file and rename over: a reader sees the old file or the new one, never a torn one. */
function save(t: Target): void {
  let mode = t.file.endsWith('.claude.json') ? 0o600 : 0o644;
  try {
    mode = statSync(t.file).mode & 0o777;
  } catch {
    // New file: the default mode above.
  }
  try {
    writeFileAtomic(t.file, JSON.stringify(t.root, null, 2), mode);
  } catch (e) {
    throw new Refusal(`Cannot write ${t.file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function alreadyExists(scope: McpScope, name: string): Refusal {
  return new Refusal(scope === 'project' ? `MCP server ${name} already exists in .mcp.json` : `MCP server ${name} already exists in ${scope} config`);
}

function parseHeaders(headers: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of headers) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new Refusal(`Invalid header format: "${h}". Expected format: "Header-Name: value"`);
    out[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
  }
  return out;
}

function parseEnv(env: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of env) {
    const eq = e.indexOf('=');
    if (eq <= 0) throw new Refusal(`Invalid environment variable format: ${e}, environment variables should be added as: -e KEY1=value1 -e KEY2=value2`);
    out[e.slice(0, eq)] = e.slice(eq + 1);
  }
  return out;
}

/** add-json's checks, with Claude Code's messages; a stdio entry gets `args: []` as its schema's default. */
function validateJson(text: string): Json {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    v = undefined;
  }
  if (!isObject(v)) throw new Refusal('Invalid configuration: not a JSON object. Check its quotes, commas and braces.');
  const type = v['type'];
  if (type === undefined && typeof v['url'] === 'string') throw new Refusal('Invalid configuration: it has a "url" but no "type". Add "type": "http" (or "sse" / "ws").');
  if (type === undefined || type === 'stdio') {
    if (typeof v['command'] !== 'string' || v['command'] === '') throw new Refusal('Invalid configuration: a stdio server needs a "command" string.');
    return v['args'] === undefined ? { ...v, args: [] } : v;
  }
  if (type === 'streamable-http') return checkUrl({ ...v, type: 'http' });
  if (type === 'http' || type === 'sse' || type === 'ws') return checkUrl(v);
  throw new Refusal('Invalid configuration: unknown "type". Use "stdio", "sse", "http" (or "streamable-http") or "ws".');
}

function checkUrl(v: Json): Json {
  if (typeof v['url'] !== 'string' || v['url'] === '') throw new Refusal(`Invalid configuration: a ${String(v['type'])} server needs a "url" string.`);
  return v;
}

/** Claude Code's rule for the names `add` and `add-json` accept. */
function checkName(name: string): void {
  if (!/^[a-zA-Z0-9_-]+$/.test(name)) throw new Refusal(`Invalid name ${name}. Names can only contain letters, numbers, hyphens, and underscores.`);
}

function missing(name: string): UsageError {
  return new UsageError(`missing required argument '${name}'`);
}

function add(args: readonly string[], io: SubcommandIO, out: (l: string) => void): SubExit {
  const a = parse(args, new Set(['help', 'scope', 'transport', 'env', 'header', 'oauth']));
  if (a.help) {
    out(ADD_HELP.join('\n'));
    return SUB_EXIT.ok;
  }
  const [name, target, ...rest] = a.positionals;
  if (name === undefined) throw missing('name');
  if (target === undefined) throw missing('commandOrUrl');
  checkName(name);
  if (a.oauth) throw new Refusal(`${a.oauth}: OAuth for MCP servers is not available in agentd. Pass a token with -H "Authorization: Bearer …" instead.`);
  const scope = scopeOf(a.scope);
  const transport = a.transport === undefined ? 'stdio' : a.transport === 'streamable-http' ? 'http' : a.transport;
  if (transport !== 'stdio' && transport !== 'http' && transport !== 'sse') throw new Refusal(`Invalid transport type: ${a.transport}. Must be one of: stdio, sse, http (or streamable-http)`);
  const t = load(scope, io);
  if (Object.hasOwn(t.servers, name)) throw alreadyExists(scope, name);
  if (transport === 'stdio') {
    if (a.transport === undefined && /^https?:\/\//.test(target)) {
      io.stderr.write(
        [
          `Warning: The command "${target}" looks like a URL, but is treated as a stdio server because --transport wasn't set.`,
          `If this is an HTTP server, use: agentd mcp add --transport http ${name} ${target}`,
          `If this is an SSE server, use: agentd mcp add --transport sse ${name} ${target}`,
          '',
        ].join('\n'),
      );
    }
    t.servers[name] = { type: 'stdio', command: target, args: rest, env: parseEnv(a.env) };
    save(t);
    out(`Added stdio MCP server ${name} with command: ${target} ${rest.join(' ')} to ${scope} config\nFile modified: ${t.label}`);
    return SUB_EXIT.ok;
  }
  if (rest.length) throw new UsageError(`too many arguments for 'add'. Expected 2 arguments but got ${2 + rest.length}.`);
  const headers = parseHeaders(a.headers);
  t.servers[name] = { type: transport, url: target, ...(a.headers.length ? { headers } : {}) };
  save(t);
  // Claude Code prints the header values of project and user scope redacted; agentd never prints them.
  const shown = Object.fromEntries(Object.keys(headers).map((k) => [k, '[REDACTED]']));
  out(
    [
      `Added ${transport.toUpperCase()} MCP server ${name} with URL: ${target} to ${scope} config`,
      ...(a.headers.length ? [`Headers: ${JSON.stringify(shown, null, 2)}`] : []),
      `File modified: ${t.label}`,
    ].join('\n'),
  );
  return SUB_EXIT.ok;
}

function addJson(args: readonly string[], io: SubcommandIO, out: (l: string) => void): SubExit {
  const a = parse(args, new Set(['help', 'scope', 'oauth']));
  if (a.help) {
    out(ADD_JSON_HELP.join('\n'));
    return SUB_EXIT.ok;
  }
  const [name, json, ...extra] = a.positionals;
  if (name === undefined) throw missing('name');
  if (json === undefined) throw missing('json');
  if (extra.length) throw new UsageError(`too many arguments for 'add-json'. Expected 2 arguments but got ${a.positionals.length}.`);
  checkName(name);
  if (a.oauth) throw new Refusal(`${a.oauth}: OAuth for MCP servers is not available in agentd.`);
  const scope = scopeOf(a.scope);
  const config = validateJson(json === '-' ? readFileSync(0, 'utf8') : json);
  const t = load(scope, io);
  if (Object.hasOwn(t.servers, name)) throw alreadyExists(scope, name);
  t.servers[name] = config;
  save(t);
  out(`Added ${typeof config['type'] === 'string' ? config['type'] : 'stdio'} MCP server ${name} to ${scope} config`);
  return SUB_EXIT.ok;
}

function remove(args: readonly string[], io: SubcommandIO, out: (l: string) => void): SubExit {
  const a = parse(args, new Set(['help', 'scope']));
  if (a.help) {
    out(REMOVE_HELP.join('\n'));
    return SUB_EXIT.ok;
  }
  const [name, ...extra] = a.positionals;
  if (name === undefined) throw missing('name');
  if (extra.length) throw new UsageError(`too many arguments for 'remove'. Expected 1 argument but got ${a.positionals.length}.`);
  const drop = (scope: McpScope, t: Target): SubExit => {
    delete t.servers[name];
    save(t);
    out(`Removed MCP server ${scope === 'project' ? `"${name}"` : name} from ${scope} config\nFile modified: ${t.label}`);
    return SUB_EXIT.ok;
  };
  if (a.scope !== undefined) {
    const scope = scopeOf(a.scope);
    const t = load(scope, io);
    if (!Object.hasOwn(t.servers, name)) throw new Refusal(`No MCP server named "${name}" in ${scope === 'project' ? '.mcp.json' : `${scope} scope`}`);
    return drop(scope, t);
  }
  const having: Array<[McpScope, Target]> = [];
  const all: string[] = [];
  for (const scope of ['local', 'project', 'user'] as const) {
    const t = load(scope, io);
    all.push(...Object.keys(t.servers));
    if (Object.hasOwn(t.servers, name)) having.push([scope, t]);
  }
  const [only, ...more] = having;
  if (!only) throw new Refusal(all.length ? `No MCP server named "${name}". Configured servers: ${[...new Set(all)].join(', ')}` : `No MCP server named "${name}". Run \`agentd mcp add\` to add one.`);
  if (more.length) {
    const label: Record<McpScope, string> = {
      local: 'Local config (private to you in this project)',
      project: 'Project config (shared via .mcp.json)',
      user: 'User config (available in all your projects)',
    };
    throw new Refusal(
      [
        `MCP server "${name}" exists in multiple scopes:`,
        ...having.map(([s, t]) => `  - ${label[s]} (${t.label})`),
        '',
        'To remove from a specific scope, use:',
        ...having.map(([s]) => `  agentd mcp remove ${name} -s ${s}`),
      ].join('\n'),
    );
  }
  return drop(only[0], only[1]);
}

/** Runs `add`, `add-json` or `remove`; refusals are one message on stderr and exit 1, as Claude Code's. */
export function runMcpEdit(sub: 'add' | 'add-json' | 'remove', args: readonly string[], io: SubcommandIO): SubExit {
  const out = (text: string): void => void io.stdout.write(`${text}\n`);
  try {
    return sub === 'add' ? add(args, io, out) : sub === 'add-json' ? addJson(args, io, out) : remove(args, io, out);
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    io.stderr.write(`${e.message}\n`);
    return SUB_EXIT.no;
  }
}
