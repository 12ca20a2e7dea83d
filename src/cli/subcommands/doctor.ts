// `agentd doctor`: checks what a working agentd needs, locally. The endpoint is contacted only when asked
// (--check-endpoint), with a short timeout. Exit 0 when nothing failed (warnings allowed), 1 otherwise.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROTOCOL_LEVEL } from '../../../protocol/src/runtime.js';
import { readEnv } from '../../config/env.js';
import { claudeConfigRoot } from '../../store/paths.js';
import { AGENTD_VERSION } from '../../version.js';
import { createReadOnlySandbox, parseReadOnlySandboxPolicy } from '../../tools/sandbox/index.js';
import { probeCommandSandbox } from '../../tools/sandbox/runtime.js';
import { type Ripgrep, type RipgrepChoice, findRipgrep, ripgrepVersion } from '../../tools/ripgrep.js';
import { parseSubArgs } from './args.js';
import { authStatus } from './auth.js';
import { settingsLayers } from './settings-peek.js';
import { SUB_EXIT, type SubExit, type SubcommandIO, UsageError } from './types.js';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skipped';
export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
}

export const MIN_NODE_MAJOR = 20;
const ENDPOINT_TIMEOUT_MS = 3000;

export function nodeCheck(version: string, execPath: string): Check {
  const major = Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
  return major >= MIN_NODE_MAJOR
    ? { name: 'Node.js', status: 'ok', detail: `${version} (${execPath})` }
    : { name: 'Node.js', status: 'fail', detail: `${version} (${execPath}): agentd needs Node ${MIN_NODE_MAJOR} or newer` };
}

/** How the daemon would choose its rg with this environment (tools/ripgrep.ts). */
function ripgrepChoice(env: SubcommandIO['env']): RipgrepChoice {
  const e = readEnv(env);
  return { preferSystem: e.ripgrepPreferSystem, path: e.path };
}

/** Which rg Grep and the command sandbox run, and its version. `find` substitutes the lookup (tests). */
export async function ripgrepCheck(env: SubcommandIO['env'], find: (c: RipgrepChoice) => Promise<Ripgrep | undefined> = (c) => findRipgrep(c)): Promise<Check> {
  const name = 'ripgrep';
  const choice = ripgrepChoice(env);
  const rg = await find(choice);
  if (!rg) {
    return {
      name,
      status: 'warn',
      detail:
        'none: the ripgrep agentd ships (@vscode/ripgrep, an optional dependency) is not installed for this platform and rg is not on PATH: Grep uses its built-in JavaScript engine (slower on large trees) and the command sandbox cannot start (install ripgrep, or reinstall agentd with its optional dependencies)',
    };
  }
  const version = await ripgrepVersion(rg);
  const why = rg.source === 'shipped' ? 'shipped with agentd' : choice.preferSystem ? 'on PATH, as USE_BUILTIN_RIPGREP asks' : 'on PATH (the one agentd ships is not installed for this platform)';
  if (version === undefined) return { name, status: 'warn', detail: `${rg.command} (${why}) does not run: Grep uses its built-in JavaScript engine` };
  return { name, status: 'ok', detail: `${version}, ${why}: ${rg.command}` };
}

async function shellParserCheck(): Promise<Check> {
  const name = 'Shell parser (tree-sitter WASM)';
  try {
    // The tools bundle (dist/agentd-tools.js): the one check that loads it.
    const m = await import('../../tools/lazy-entry.js');
    await m.warmShellParser();
    const a = await m.analyzeCommand('echo ok | wc -l');
    return a.ok ? { name, status: 'ok', detail: 'loads and parses' } : { name, status: 'fail', detail: 'loaded, but could not parse a simple command' };
  } catch (e) {
    return { name, status: 'fail', detail: `does not load: ${e instanceof Error ? e.message : String(e)} (permission checks of Bash commands then ask for everything)` };
  }
}

/**
 * Whether the second wall is up: read-only commands (auto-approved by the shell analyser) run in the
 * read-only sandbox. `bwrap` replaces the one on PATH (tests).
 */
export async function readOnlySandboxCheck(env: SubcommandIO['env'], opts: { bwrap?: string } = {}): Promise<Check> {
  const name = 'Read-only sandbox';
  const typed = readEnv(env);
  const p = parseReadOnlySandboxPolicy(typed.readOnlySandbox);
  if (!p.ok) return { name, status: 'fail', detail: `${p.message} (the daemon refuses to start)` };
  const s = await createReadOnlySandbox({ policy: p.policy, path: typed.path, ...(opts.bwrap ? { bwrap: opts.bwrap } : {}) }).status();
  switch (s.state) {
    case 'off':
      return { name, status: 'warn', detail: 'off (AGENTD_READONLY_SANDBOX=off): read-only commands run unconfined, guarded by the shell analyser only' };
    case 'active':
      return { name, status: 'ok', detail: `active: bubblewrap (${s.path}); read-only commands run without network, writes or reads outside the working directories` };
    case 'unavailable':
      return p.policy === 'required'
        ? { name, status: 'fail', detail: `${s.reason}: AGENTD_READONLY_SANDBOX=required, so read-only commands ask before they run` }
        : { name, status: 'warn', detail: `${s.reason}: read-only commands run unconfined, guarded by the shell analyser only (install bubblewrap)` };
  }
}

/**
 * Whether the command sandbox of the `sandbox` settings could run here (bubblewrap, socat, ripgrep, user
 * namespaces), without starting it. Unavailable is a warning: it fails start-up only when settings enable it.
 */
export async function commandSandboxCheck(env: SubcommandIO['env'], probe?: Parameters<typeof probeCommandSandbox>[0]): Promise<Check> {
  const name = 'Command sandbox (sandbox settings)';
  let found: Ripgrep | undefined;
  const r = await probeCommandSandbox(probe, async () => (found = await findRipgrep(ripgrepChoice(env))));
  if (!r.ok) return { name, status: 'warn', detail: `unavailable: ${r.reason}. Settings that enable the sandbox fail start-up (unless sandbox.failIfUnavailable is false)` };
  const warned = r.warnings.length ? ` (${r.warnings.join('; ')})` : '';
  const rg = found ? `ripgrep (${found.source === 'shipped' ? 'shipped with agentd' : 'on PATH'})` : 'ripgrep';
  return { name, status: r.warnings.length ? 'warn' : 'ok', detail: `available: @anthropic-ai/sandbox-runtime with bubblewrap, socat and ${rg}; used when settings enable it${warned}` };
}

/** Writable, or creatable (the nearest existing ancestor is a writable directory). Creates nothing. */
export function dirCheck(name: string, dir: string): Check {
  let probe = dir;
  while (!existsSync(probe)) {
    const up = dirname(probe);
    if (up === probe) break;
    probe = up;
  }
  try {
    if (!statSync(probe).isDirectory()) return { name, status: 'fail', detail: `${dir}: ${probe} is not a directory` };
    accessSync(probe, constants.W_OK | constants.X_OK);
    return { name, status: 'ok', detail: probe === dir ? `${dir} (writable)` : `${dir} (will be created in ${probe})` };
  } catch {
    return { name, status: 'fail', detail: `${dir}: ${probe} is not writable` };
  }
}

/** A settings file that exists but does not parse stops the daemon at start-up: say which, before that happens. */
function settingsCheck(io: SubcommandIO, configDir: string): Check {
  const layers = settingsLayers(configDir, io.cwd, io.globalArgs);
  const bad = layers.flatMap((l) => (l.peeked.kind === 'unreadable' ? [`${l.where}: ${l.peeked.message}`] : []));
  if (bad.length) return { name: 'Settings files', status: 'fail', detail: bad.join('; ') };
  const found = layers.filter((l) => l.peeked.kind === 'ok').map((l) => l.where);
  return { name: 'Settings files', status: 'ok', detail: found.length ? found.join(', ') : 'none' };
}

function credentialsCheck(io: SubcommandIO): Check {
  const s = authStatus(io);
  const unused = s.agentd.unused.map((u) => ` (set but not used: ${u.source})`).join('');
  if (s.agentd.modelProvider === 'scripted') return { name: 'Credentials', status: 'ok', detail: 'scripted model provider: none needed' };
  if (!s.loggedIn) return { name: 'Credentials', status: 'fail', detail: `none: set ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN or apiKeyHelper, or select a cloud provider${unused}` };
  const what = s.apiProvider === 'firstParty' ? s.agentd.credentials.join(' and ') : `${s.apiProvider} (the provider's own credentials)`;
  return { name: 'Credentials', status: unused ? 'warn' : 'ok', detail: `${what}${unused}` };
}

/**
 * Any HTTP answer means reachable (even 404/401): the question is the network path, not the credentials.
 * node:http rather than fetch: fetch refuses some ports outright ("bad port", e.g. 9) where the model client
 * would get a real socket error.
 */
export async function endpointCheck(baseUrl: string, timeoutMs = ENDPOINT_TIMEOUT_MS): Promise<Check> {
  const name = 'Endpoint';
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { name, status: 'fail', detail: `${baseUrl}: not a URL` };
  }
  const { request } = url.protocol === 'http:' ? await import('node:http') : await import('node:https');
  return new Promise<Check>((resolve) => {
    const req = request(url, { method: 'HEAD', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve({ name, status: 'ok', detail: `${baseUrl} answers (HTTP ${res.statusCode ?? '?'})` });
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    req.on('error', (e: NodeJS.ErrnoException & { address?: string; port?: number }) => {
      const where = e.address ? ` ${e.address}${e.port !== undefined ? `:${e.port}` : ''}` : e.code === 'ENOTFOUND' ? ` ${url.hostname}` : '';
      resolve({ name, status: 'fail', detail: `${baseUrl}: ${e.code ? `${e.code}${where}` : e.message}` });
    });
    req.end();
  });
}

export const DOCTOR_HELP = [
  'Usage: agentd doctor [options]',
  '',
  'Check what agentd needs: Node version, which ripgrep Grep and the sandbox run (the one agentd ships, or rg on',
  'PATH with USE_BUILTIN_RIPGREP=0) and its version, the shell parser (tree-sitter WASM), the read-only sandbox',
  '(bubblewrap), the command sandbox of the sandbox settings (bubblewrap, socat, user namespaces), writable config and transcript directories, settings files that parse, credentials. Contacts the',
  'endpoint only with --check-endpoint.',
  'Exit 0 when no check failed (warnings allowed), 1 otherwise.',
  '',
  'Options:',
  '  --check-endpoint   Also check that the Messages endpoint answers (HEAD request, 3 s timeout)',
  '  --json             Output as JSON: {"ok": boolean, "checks": [{"name", "status", "detail"}]}',
  '  -h, --help         Display help for command',
];

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL', skipped: 'skip' };

export async function runDoctor(args: readonly string[], io: SubcommandIO): Promise<SubExit> {
  const a = parseSubArgs(args, { booleans: ['json', 'check-endpoint'] });
  if (a.flags.has('help')) {
    io.stdout.write(`${DOCTOR_HELP.join('\n')}\n`);
    return SUB_EXIT.ok;
  }
  if (a.positionals.length) throw new UsageError(`too many arguments for 'doctor'. Expected 0 arguments but got ${a.positionals.length}.`);
  const configDir = claudeConfigRoot(io.env);
  const status = authStatus(io);
  const checks: Check[] = [
    nodeCheck(process.version, process.execPath),
    await ripgrepCheck(io.env),
    await shellParserCheck(),
    await readOnlySandboxCheck(io.env),
    await commandSandboxCheck(io.env),
    dirCheck('Config directory', configDir),
    dirCheck('Transcripts', join(configDir, 'projects')),
    settingsCheck(io, configDir),
    credentialsCheck(io),
  ];
  if (status.agentd.baseUrl === null) checks.push({ name: 'Endpoint', status: 'skipped', detail: 'scripted model provider: no endpoint' });
  else if (a.flags.has('check-endpoint')) checks.push(await endpointCheck(status.agentd.baseUrl));
  else checks.push({ name: 'Endpoint', status: 'skipped', detail: `${status.agentd.baseUrl} not contacted (agentd doctor --check-endpoint)` });
  const failed = checks.filter((c) => c.status === 'fail').length;
  if (a.flags.has('json')) {
    io.stdout.write(`${JSON.stringify({ ok: failed === 0, checks }, null, 2)}\n`);
  } else {
    io.stdout.write(
      [
        `agentd doctor (agentd ${AGENTD_VERSION}, Claude Code protocol ${PROTOCOL_LEVEL})`,
        '',
        ...checks.map((c) => `${MARK[c.status]}  ${c.name}: ${c.detail}`),
        '',
        failed === 0 ? 'No problems found.' : `${failed} problem${failed > 1 ? 's' : ''} found.`,
        '',
      ].join('\n'),
    );
  }
  return failed === 0 ? SUB_EXIT.ok : SUB_EXIT.no;
}
