// `agentd mcp …`: `list` and `get` report the servers configured where Claude Code keeps them, without connecting
// to them (sessions do, src/mcp); `add`, `add-json` and `remove` edit those files (mcp-edit.ts); the rest of Claude
// Code's mcp commands (OAuth login, serve, …) are refused. Environment values and header values are never printed.
import { join } from 'node:path';
import { globalConfigFile } from './global-config.js';
import { parseSubArgs } from './args.js';
import { runMcpEdit } from './mcp-edit.js';
import { peekJsonFile } from './settings-peek.js';
import { SUB_EXIT, type SubExit, type SubcommandIO, UsageError } from './types.js';

export type McpScope = 'local' | 'project' | 'user';

export interface ConfiguredServer {
  name: string;
  scope: McpScope;
  /** The file it was read from. */
  file: string;
  config: Record<string, unknown>;
}

const NOT_CONNECTED = 'not checked: agentd mcp list does not connect to servers (sessions do)';
const SCOPE_LABEL: Record<McpScope, string> = {
  local: 'Local config (private to you in this project)',
  project: 'Project config (shared via .mcp.json)',
  user: 'User config (available in all your projects)',
};


function serversOf(v: unknown): Array<[string, Record<string, unknown>]> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return [];
  return Object.entries(v as Record<string, unknown>).filter((e): e is [string, Record<string, unknown>] => typeof e[1] === 'object' && e[1] !== null && !Array.isArray(e[1]));
}

/** The configured servers in Claude Code's precedence order (local, project, user), and files that did not parse. */
export function configuredServers(io: Pick<SubcommandIO, 'env' | 'home' | 'cwd'>): { servers: ConfiguredServer[]; problems: string[] } {
  const servers: ConfiguredServer[] = [];
  const problems: string[] = [];
  const globalFile = globalConfigFile(io);
  const global = peekJsonFile(globalFile);
  const projectFile = join(io.cwd, '.mcp.json');
  const project = peekJsonFile(projectFile);
  for (const [file, p] of [
    [globalFile, global],
    [projectFile, project],
  ] as const) {
    if (p.kind === 'unreadable') problems.push(`${file}: ${p.message}`);
  }
  if (global.kind === 'ok') {
    const projects = global.value['projects'];
    const here = typeof projects === 'object' && projects !== null ? (projects as Record<string, unknown>)[io.cwd] : undefined;
    const local = typeof here === 'object' && here !== null ? (here as Record<string, unknown>)['mcpServers'] : undefined;
    for (const [name, config] of serversOf(local)) servers.push({ name, scope: 'local', file: globalFile, config });
  }
  if (project.kind === 'ok') for (const [name, config] of serversOf(project.value['mcpServers'])) servers.push({ name, scope: 'project', file: projectFile, config });
  if (global.kind === 'ok') for (const [name, config] of serversOf(global.value['mcpServers'])) servers.push({ name, scope: 'user', file: globalFile, config });
  return { servers, problems };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function transport(c: Record<string, unknown>): string {
  return str(c['type']) ?? (str(c['url']) !== undefined ? 'http' : 'stdio');
}

/** `command args` for stdio servers, `url (HTTP)` for remote ones, as Claude Code's `mcp list` prints them. */
export function describeServer(c: Record<string, unknown>): string {
  const t = transport(c);
  if (t === 'stdio') return [str(c['command']) ?? '', ...strs(c['args'])].join(' ').trim();
  return `${str(c['url']) ?? ''} (${t.toUpperCase()})`;
}

function details(s: ConfiguredServer): string[] {
  const c = s.config;
  const t = transport(c);
  const lines = [`${s.name}:`, `  Scope: ${SCOPE_LABEL[s.scope]}`, `  Status: ${NOT_CONNECTED}`, `  Type: ${t}`];
  if (t === 'stdio') {
    lines.push(`  Command: ${str(c['command']) ?? ''}`);
    const args = strs(c['args']);
    if (args.length) lines.push(`  Args: ${args.join(' ')}`);
  } else {
    lines.push(`  URL: ${str(c['url']) ?? ''}`);
  }
  // Names only: these values are often tokens.
  for (const [key, label] of [
    ['env', 'Environment'],
    ['headers', 'Headers'],
  ] as const) {
    const names = Object.keys(typeof c[key] === 'object' && c[key] !== null ? (c[key]) : {});
    if (names.length) lines.push(`  ${label} (values not shown):`, ...names.map((n) => `    ${n}`));
  }
  lines.push(`  Configured in: ${s.file}`);
  return lines;
}

export const MCP_HELP = [
  'Usage: agentd mcp [command]',
  '',
  'MCP servers, configured where Claude Code keeps them: local (~/.claude.json, this project),',
  'project (.mcp.json in this directory), user (~/.claude.json). Sessions connect to them; list and get',
  'show what is configured without connecting.',
  '',
  'Commands:',
  '  add [options] <name> <commandOrUrl> [args...]  Add a server (-s scope, -t stdio|http|sse, -e KEY=value, -H "Name: value")',
  '  add-json [options] <name> <json>               Add a server from a JSON string (or - for stdin)',
  '  remove [options] <name>                        Remove a server (-s scope; else from whichever scope has it)',
  '  list                                           List configured MCP servers',
  '  get <name>                                     Details of one configured server (environment and header values are not shown)',
  '',
  '  serve                                          Serve the built-in tools as an MCP server on stdio (no permission prompts: what would ask is refused)',
  '',
  'Not available in agentd (exit 1): add-from-claude-desktop, login, logout, reset-project-choices.',
];

const BY_HAND = 'Use agentd mcp add|add-json|remove, or edit .mcp.json (project) or ~/.claude.json (user) by hand.';
const NO_OAUTH = "OAuth runs inside a session, started by the host (the SDK's mcpAuthenticate, control request mcp_authenticate; mcpClearAuth forgets a grant), or give the server a token in its headers, e.g. agentd mcp add -t http -H 'Authorization: Bearer ${TOKEN}' <name> <url>.";
/** Claude Code's mcp commands agentd does not have, each refused with what to do instead. */
const UNSUPPORTED = new Map<string, string>([
  ['add-from-claude-desktop', `'mcp add-from-claude-desktop' is not available in agentd (it is an interactive import of Claude Desktop's servers). ${BY_HAND}`],
  ['login', `'mcp login' is not available in agentd: ${NO_OAUTH}`],
  ['logout', `'mcp logout' is not available in agentd: ${NO_OAUTH}`],
  ['reset-project-choices', `'mcp reset-project-choices' is not available in agentd: it has no .mcp.json approval choices (project servers are used when the project setting source is on). ${BY_HAND}`],
]);

export function runMcp(args: readonly string[], io: SubcommandIO): SubExit {
  const [sub, ...rest] = args;
  const print = (lines: readonly string[]): void => void io.stdout.write(`${lines.join('\n')}\n`);
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    print(MCP_HELP);
    return sub === undefined ? SUB_EXIT.no : SUB_EXIT.ok;
  }
  const refusal = UNSUPPORTED.get(sub);
  if (refusal !== undefined) {
    io.stderr.write(`${refusal}\n`);
    return SUB_EXIT.no;
  }
  if (sub === 'add' || sub === 'add-json' || sub === 'remove') return runMcpEdit(sub, rest, io);
  if (sub !== 'list' && sub !== 'get') throw new UsageError(`unknown command '${sub}' (agentd mcp has: add, add-json, remove, list, get)`);
  const a = parseSubArgs(rest);
  if (a.flags.has('help')) {
    print(sub === 'list' ? ['Usage: agentd mcp list', '', 'List configured MCP servers (without connecting to them).'] : ['Usage: agentd mcp get <name>', '', 'Details of one configured MCP server.']);
    return SUB_EXIT.ok;
  }
  const { servers, problems } = configuredServers(io);
  for (const p of problems) io.stderr.write(`warning: cannot read ${p}\n`);
  if (sub === 'list') {
    if (a.positionals.length) throw new UsageError(`too many arguments for 'list'. Expected 0 arguments but got ${a.positionals.length}.`);
    if (!servers.length) {
      print(['No MCP servers configured.']);
      return SUB_EXIT.ok;
    }
    print(servers.map((s) => `${s.name}: ${describeServer(s.config)} - ${NOT_CONNECTED}`));
    return SUB_EXIT.ok;
  }
  const [name, ...extra] = a.positionals;
  if (name === undefined) throw new UsageError("missing required argument 'name'");
  if (extra.length) throw new UsageError(`too many arguments for 'get'. Expected 1 argument but got ${a.positionals.length}.`);
  const found = servers.find((s) => s.name === name);
  if (!found) {
    io.stderr.write(`No MCP server named "${name}".\n`);
    return SUB_EXIT.no;
  }
  print(details(found));
  return SUB_EXIT.ok;
}
