// The command sandbox with no host allowed runs without the runtime's proxy relays (src/tools/sandbox/offline.ts):
// the same invocation less the proxy socket and the relay lines, still in a network namespace of its own, still
// under the seccomp helper. Driven through the real @anthropic-ai/sandbox-runtime (bubblewrap, socat, rg, curl, as
// test/e2e/sdk-sandbox.test.ts needs). With a host allowed, the relays stay, the proxy lets it through, and what it
// refuses is reported to the command (WrappedCommand.violations) when no other sandboxed command ran beside it.
import { spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_LINES as PINNED, normalisedRelayLines, withoutRelays } from '../../../src/tools/sandbox/offline.js';
import { type CommandSandbox, createCommandSandbox } from '../../../src/tools/sandbox/runtime.js';
import { resolveSandboxSettings } from '../../../src/tools/sandbox/settings.js';
import { bwrapArgv, parseQuotedWords } from '../../../src/tools/sandbox/wrap-cache.js';
import { tempDir } from '../../support/daemon.js';

type Runtime = typeof import('@anthropic-ai/sandbox-runtime');

/** The runtime's quote() (dist/utils/shell-quote.js). */
function quote(args: readonly string[]): string {
  return args.map((a) => (a === '' ? "''" : /^[A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@+,-]*$/.test(a) ? a : `'${a.replace(/'/g, `'"'"'`)}'`)).join(' ');
}

/** The relay lines of sandbox-runtime 0.0.83 (buildSandboxCommand and RELAYS_LISTEN), as offline.ts pins them. */
const RELAY_LINES = `{ <SOCAT> TCP6-LISTEN:3128,ipv6only=0,fork,reuseaddr,backlog=4096 UNIX-CONNECT:<SOCKET> || exec <SOCAT> TCP4-LISTEN:3128,fork,reuseaddr,backlog=4096 UNIX-CONNECT:<SOCKET>; } >/dev/null 2>&1 &
_srt_http=$!
{ <SOCAT> TCP6-LISTEN:1080,ipv6only=0,fork,reuseaddr,backlog=4096 UNIX-CONNECT:<SOCKET> || exec <SOCAT> TCP4-LISTEN:1080,fork,reuseaddr,backlog=4096 UNIX-CONNECT:<SOCKET>; } >/dev/null 2>&1 &
_srt_socks=$!
trap 'rc=$?; kill %1 %2 2>/dev/null; exit $rc' EXIT
_srt_since=
while [ -r /proc/net/sockstat ] && kill -0 "$_srt_http" "$_srt_socks" 2>/dev/null; do
  _srt_up=0
  for _srt_counts in /proc/net/sockstat /proc/net/sockstat6; do
    [ -r "$_srt_counts" ] || continue
    while read -r _srt_kind _srt_skip _srt_inuse _srt_skip; do
      case "$_srt_kind" in TCP: | TCP6:) _srt_up=$((_srt_up + _srt_inuse)); break ;; esac
    done < "$_srt_counts"
  done
  [ "$_srt_up" -lt 2 ] || break
  read -r _srt_now _srt_skip 2>/dev/null < /proc/uptime || break
  _srt_now=1\${_srt_now%.*}\${_srt_now#*.}
  [ "$((_srt_now - \${_srt_since:=$_srt_now}))" -lt 30 ] || break
done
unset _srt_since _srt_now _srt_up _srt_counts _srt_kind _srt_skip _srt_inuse _srt_http _srt_socks`;

const SCRIPT = 'exec bash -c "$AGENTD_TEST_COMMAND"';
const HELPER = join(dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime/package.json')), 'vendor/seccomp/x64/apply-seccomp');

let hits = 0;
const http = createHttpServer((req, res) => {
  hits++;
  res.end(`hello from ${req.headers.host}`);
});
let port = 0;
let unixConnects = 0;
const unix = createNetServer((c) => {
  unixConnects++;
  c.end('unix\n');
});
let unixPath = '';
let root = '';
let spill = '';
const before = process.cwd();

beforeAll(async () => {
  root = tempDir('agentd-offline-');
  spill = tempDir('agentd-offline-spill-');
  unixPath = join(spill, 'host.sock');
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  port = (http.address() as AddressInfo).port;
  await new Promise<void>((r) => unix.listen(unixPath, r));
  // The runtime scans its process's working directory (this file runs in its own process).
  process.chdir(root);
});
afterAll(async () => {
  process.chdir(before);
  await new Promise<void>((r) => http.close(() => r()));
  await new Promise<void>((r) => unix.close(() => r()));
});

/** A sandbox over the real runtime, keeping the argv the runtime itself returned for each fresh wrap. */
function realSandbox(block: Record<string, unknown>): { sandbox: CommandSandbox; raw: string[][]; runtime: () => Runtime } {
  const r = resolveSandboxSettings({ enabled: true, ...block });
  if (!r.ok || !r.settings) throw new Error('settings');
  const raw: string[][] = [];
  let loaded: Runtime | undefined;
  const sandbox = createCommandSandbox({
    settings: r.settings,
    workingDirectory: () => process.cwd(),
    load: async () => {
      const rt = await import('@anthropic-ai/sandbox-runtime');
      const m = rt.SandboxManager;
      loaded = rt;
      const wrap = async (...a: Parameters<typeof m.wrapWithSandboxArgv>) => {
        const w = await m.wrapWithSandboxArgv(...a);
        raw.push(w.argv);
        return w;
      };
      return { ...rt, SandboxManager: { ...m, wrapWithSandboxArgv: wrap } };
    },
  });
  return {
    sandbox,
    raw,
    runtime: () => {
      if (!loaded) throw new Error('not loaded');
      return loaded;
    },
  };
}

async function run(sandbox: CommandSandbox, command: string): Promise<{ argv: string[]; code: number | null; out: string; violations: string[] }> {
  const f = join(spill, `cwd-${Math.random().toString(16).slice(2)}`);
  writeFileSync(f, '');
  const w = await sandbox.wrap({ script: SCRIPT, cwd: root, writableDirs: [root], writableFiles: [f], readOnly: false });
  // Not spawnSync: the runtime's proxy answers in this process.
  const c = spawn(w.argv[0] as string, w.argv.slice(1), { cwd: root, env: { ...process.env, AGENTD_TEST_COMMAND: command }, timeout: 20_000 });
  let out = '';
  c.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  c.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number | null>((r) => c.on('close', r));
  w.release();
  return { argv: w.argv, code, out, violations: w.violations() };
}

const sockets = (rt: Runtime): string[] => [...new Set([rt.SandboxManager.getLinuxHttpSocketPath(), rt.SandboxManager.getLinuxSocksSocketPath()].filter((p): p is string => p !== undefined))];

describe('no host allowed: no relays', () => {
  const { sandbox, raw, runtime } = realSandbox({});
  beforeAll(async () => {
    expect(await sandbox.start()).toEqual({ state: 'active' });
  });
  afterAll(() => sandbox.stop());

  it('runs the runtime’s invocation less the proxy socket and the relay lines, seccomp helper and namespaces kept', async () => {
    hits = 0;
    const first = await run(sandbox, 'echo ok');
    expect({ code: first.code, out: first.out }).toEqual({ code: 0, out: 'ok\n' });
    expect(raw).toHaveLength(1);
    const full = bwrapArgv(raw[0] as string[]);
    const socks = sockets(runtime());
    expect(socks).toHaveLength(1); // the mux serves both protocols on one socket
    const sock = socks[0] as string;
    const end = full.indexOf('--');
    const bind = full.indexOf(sock) - 1;
    expect(full.slice(bind, bind + 3)).toEqual(['--bind', sock, sock]);
    const shell = full[end + 1] as string;
    // Every option of the runtime's but the socket's bind, in order; the command as the runtime's no-proxy branch runs it.
    expect(first.argv).toEqual([...full.slice(0, bind), ...full.slice(bind + 3, end), '--', shell, '-c', `SRT_ALLOW_NESTED_USERNS=0 ${quote([HELPER])} ${quote([shell, '-c', SCRIPT])}`]);
    expect(first.argv).toContain('--unshare-net');
    expect(first.argv.filter((w) => w.includes('UNIX-CONNECT') || w.includes(sock))).toEqual([]);
    // The pin holds for this runtime.
    const lines = (parseQuotedWords(full[end + 3] as string)?.[2] as string).split('\n').slice(0, -1);
    expect(normalisedRelayLines(lines, socks, 'socat')).toBe(RELAY_LINES);
    expect(PINNED).toBe(RELAY_LINES);
    // Reused afterwards (with this call's cwd file and agentd's empty mount source put in).
    const again = await run(sandbox, 'echo again');
    expect({ code: again.code, out: again.out, n: again.argv.length, last: again.argv.at(-1) }).toEqual({ code: 0, out: 'again\n', n: first.argv.length, last: first.argv.at(-1) });
    expect(again.argv.filter((w) => w.includes(sock))).toEqual([]);
    expect(raw).toHaveLength(1);
  });

  it('reaches nothing: not through the proxy variables, not directly, not outside, not a host Unix socket', async () => {
    hits = 0;
    unixConnects = 0;
    // Through the proxy the runtime names in HTTP_PROXY: nobody listens on the sandbox's own loopback.
    expect((await run(sandbox, `curl --noproxy '' -sS -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/ 2>/dev/null; echo " rc=$?"`)).out).toBe('000 rc=7\n');
    // Around it: the namespace has its own loopback and no route out.
    expect((await run(sandbox, `curl --noproxy '*' -sS -m 5 http://127.0.0.1:${port}/ 2>/dev/null; echo "rc=$?"`)).out).toBe('rc=7\n');
    expect((await run(sandbox, `(echo > /dev/tcp/192.0.2.1/80) 2>&1 | sed 's/^.*: //'; echo "rc=\${PIPESTATUS[0]}"`)).out).toBe('Network is unreachable\nNetwork is unreachable\nrc=1\n');
    // The seccomp helper still refuses Unix sockets (the host's one here is visible in the file system).
    const u = await run(sandbox, `socat -u UNIX-CONNECT:${unixPath} - 2>&1 | grep -o 'Operation not permitted' | head -1; echo "rc=\${PIPESTATUS[0]}"`);
    expect(u.out).toBe('Operation not permitted\nrc=1\n');
    expect(hits).toBe(0);
    expect(unixConnects).toBe(0);
  });

  it('keeps the runtime’s invocation for any other shape (slower, never looser)', () => {
    const full = bwrapArgv(raw[0] as string[]);
    const end = full.indexOf('--');
    const socks = sockets(runtime());
    const ok = withoutRelays(full, { sockets: socks, command: SCRIPT, socat: 'socat' });
    expect(ok?.includes('--unshare-net')).toBe(true);
    const inner = parseQuotedWords(full[end + 3] as string) as string[];
    const withInner = (text: string) => [...full.slice(0, end + 3), quote([inner[0] as string, '-c', text])];
    const lines = (inner[2] as string).split('\n');
    // One line more before the command (what it did would be lost), a different command, no network namespace,
    // the socket named somewhere else, the wrong sockets, another socat.
    const cases: string[][] = [
      withInner([...lines.slice(0, -1), 'umask 000', lines.at(-1)].join('\n')),
      withInner([...lines.slice(0, -1), lines.at(-1)?.replace('AGENTD_TEST_COMMAND', 'OTHER')].join('\n')),
      full.filter((w) => w !== '--unshare-net'),
      [full[0] as string, '--setenv', 'X', socks[0] as string, ...full.slice(1)],
    ];
    for (const c of cases) expect(withoutRelays(c, { sockets: socks, command: SCRIPT, socat: 'socat' })).toBeUndefined();
    expect(withoutRelays(full, { sockets: ['/tmp/other.sock'], command: SCRIPT, socat: 'socat' })).toBeUndefined();
    expect(withoutRelays(full, { sockets: socks, command: SCRIPT, socat: '/opt/socat' })).toBeUndefined();
  });
});

describe('no host allowed and allowAllUnixSockets (no seccomp helper): no relays either', () => {
  const { sandbox, raw, runtime } = realSandbox({ network: { allowAllUnixSockets: true } });
  beforeAll(async () => {
    expect(await sandbox.start()).toEqual({ state: 'active' });
  });
  afterAll(() => sandbox.stop());

  it('runs the command itself where the runtime’s relay script ended with `eval` of it', async () => {
    hits = 0;
    const r = await run(sandbox, `curl --noproxy '*' -sS -m 5 http://127.0.0.1:${port}/ 2>/dev/null; echo "rc=$?"`);
    expect({ code: r.code, out: r.out }).toEqual({ code: 0, out: 'rc=7\n' });
    const full = bwrapArgv(raw[0] as string[]);
    const sock = sockets(runtime())[0] as string;
    const end = full.indexOf('--');
    const bind = full.indexOf(sock) - 1;
    expect(full.slice(bind, bind + 3)).toEqual(['--bind', sock, sock]);
    expect(r.argv).toEqual([...full.slice(0, bind), ...full.slice(bind + 3, end), '--', full[end + 1], '-c', SCRIPT]);
    expect(hits).toBe(0);
  });
});

describe('a host allowed: the relays stay', () => {
  const { sandbox, raw } = realSandbox({ network: { allowedDomains: ['localhost'] } });
  beforeAll(async () => {
    expect(await sandbox.start()).toEqual({ state: 'active' });
  });
  afterAll(() => sandbox.stop());

  it('runs the runtime’s invocation as it is, and the proxy lets through only the allowed host', async () => {
    hits = 0;
    const allowed = await run(sandbox, `curl --noproxy '' -sS -m 5 http://localhost:${port}/`);
    expect({ code: allowed.code, out: allowed.out }).toEqual({ code: 0, out: `hello from localhost:${port}` });
    expect(allowed.argv).toEqual(bwrapArgv(raw[0] as string[]));
    expect(allowed.argv.filter((w) => w.includes('UNIX-CONNECT')).length).toBe(1);
    const denied = await run(sandbox, `curl --noproxy '' -sS -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/; echo " rc=$?"`);
    expect({ out: denied.out, violations: denied.violations }).toEqual({ out: '403 rc=0\n', violations: [`deny network-outbound 127.0.0.1:${port} (host is not on the allow list)`] });
    expect(allowed.violations).toEqual([]);
    expect(hits).toBe(1);
  });

  it('reports a refusal only to a command no other sandboxed command ran beside (they share one attribution key)', async () => {
    const deny = (path: string) => `curl --noproxy '' -sS -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/${path}`;
    const [a, b] = await Promise.all([run(sandbox, deny('a')), run(sandbox, deny('b'))]);
    expect([a.out, a.violations, b.out, b.violations]).toEqual(['403', [], '403', []]);
    const alone = await run(sandbox, deny('c'));
    expect([alone.out, alone.violations]).toEqual(['403', [`deny network-outbound 127.0.0.1:${port} (host is not on the allow list)`]]);
  });
});
