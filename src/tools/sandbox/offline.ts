// The command sandbox without network (issue 14.4: the per-command cost). When the settings allow no host at all,
// the sandbox's proxy has nothing to let through, yet @anthropic-ai/sandbox-runtime (0.0.83) starts two socat
// relays inside every sandbox to carry traffic to it, and waits until both listen: about 9 ms of every command,
// the largest step of its chain. This turns the runtime's invocation into the one its own code makes for
// "network restricted, no proxy sockets" (linux-sandbox-utils.js, wrapCommandWithSandboxLinux: `--unshare-net`
// with no socket bound in, the command run as `<seccomp helper> <shell> -c <command>` or, with no helper, as the
// command itself), a branch its API does not reach on Linux because initialize() always starts the bridge.
//
// Why this is strictly less than the runtime grants (nothing else of the invocation changes):
//  - the network namespace stays (`--unshare-net`): the sandbox has a loopback of its own and nothing else;
//  - what goes is the bind of the proxy bridge's Unix socket(s), the only way out of that namespace, and the
//    shell lines before the command that start the relays and wait for them; the seccomp helper line (or the
//    command) is kept word for word, with every bubblewrap option;
//  - the proxy would refuse every request anyway: with `allowedDomains` empty, no external proxy port, no
//    per-command lists and no ask callback that can allow (agentd registers no lists and at most one that always
//    refuses, under managed allowManagedDomainsOnly; its settings are fixed at start-up), the
//    runtime's filter (sandbox-manager.js, filterNetworkRequest) denies every host. So no command could ever
//    have been given more through the relays, and the caller must only ask for this under those conditions.
// The environment is kept as the runtime set it (TMPDIR, SANDBOX_RUNTIME and the proxy variables): a client that
// honours HTTP_PROXY fails at once with "connection refused" on the sandbox's own loopback.
//
// The dropped lines are checked against a pin of the runtime's text (RELAY_LINES: socket paths and socat spelled
// out as placeholders); any other shape (an upgrade of the runtime) returns undefined, and the caller runs the runtime's
// own invocation: slower, never looser. test/unit/tools/sandbox-offline.test.ts holds the pin against the real
// runtime, so an upgrade that changes the text fails there first.
import { parseQuotedWords } from './wrap-cache.js';

/** The relay lines of @anthropic-ai/sandbox-runtime 0.0.83 (buildSandboxCommand and RELAYS_LISTEN in
 *  linux-sandbox-utils.js), normalised by normalisedRelayLines: what leaving them out was checked against. */
export const RELAY_LINES = [
  '{ <SOCAT> TCP6-LISTEN:3128,ipv6only=0,fork,reuseaddr,backlog=4096 UNIX-CONNECT:<SOCKET> || exec <SOCAT> TCP4-LISTEN:3128,fork,reuseaddr,backlog=4096 UNIX-CONNECT:<SOCKET>; } >/dev/null 2>&1 &',
  '_srt_http=$!',
  '{ <SOCAT> TCP6-LISTEN:1080,ipv6only=0,fork,reuseaddr,backlog=4096 UNIX-CONNECT:<SOCKET> || exec <SOCAT> TCP4-LISTEN:1080,fork,reuseaddr,backlog=4096 UNIX-CONNECT:<SOCKET>; } >/dev/null 2>&1 &',
  '_srt_socks=$!',
  "trap 'rc=$?; kill %1 %2 2>/dev/null; exit $rc' EXIT",
  '_srt_since=',
  'while [ -r /proc/net/sockstat ] && kill -0 "$_srt_http" "$_srt_socks" 2>/dev/null; do',
  '  _srt_up=0',
  '  for _srt_counts in /proc/net/sockstat /proc/net/sockstat6; do',
  '    [ -r "$_srt_counts" ] || continue',
  '    while read -r _srt_kind _srt_skip _srt_inuse _srt_skip; do',
  '      case "$_srt_kind" in TCP: | TCP6:) _srt_up=$((_srt_up + _srt_inuse)); break ;; esac',
  '    done < "$_srt_counts"',
  '  done',
  '  [ "$_srt_up" -lt 2 ] || break',
  '  read -r _srt_now _srt_skip 2>/dev/null < /proc/uptime || break',
  '  _srt_now=1${_srt_now%.*}${_srt_now#*.}',
  '  [ "$((_srt_now - ${_srt_since:=$_srt_now}))" -lt 30 ] || break',
  'done',
  'unset _srt_since _srt_now _srt_up _srt_counts _srt_kind _srt_skip _srt_inuse _srt_http _srt_socks',
].join('\n');

/** The relay lines with what varies per process (socket paths, the socat program) replaced by placeholders. */
export function normalisedRelayLines(lines: readonly string[], sockets: readonly string[], socat: string): string {
  let text = lines.join('\n');
  for (const s of [...new Set(sockets)].sort((a, b) => b.length - a.length)) text = text.split(s).join('<SOCKET>');
  return text.split(`{ ${socat} `).join('{ <SOCAT> ').split(`exec ${socat} `).join('exec <SOCAT> ');
}

export interface OfflineInputs {
  /** The proxy bridge's socket paths (SandboxManager.getLinuxHttpSocketPath / getLinuxSocksSocketPath). */
  sockets: readonly string[];
  /** The command given to the runtime (the innermost `<shell> -c` runs it). */
  command: string;
  /** How the runtime names socat in the relay lines (quoted as it quotes it). */
  socat: string;
}

/**
 * bubblewrap's argv (as wrap-cache.ts bwrapArgv returns it) without the relays and the proxy sockets, or
 * undefined when the invocation is not the shape this was checked against.
 */
export function withoutRelays(words: readonly string[], inputs: OfflineInputs): string[] | undefined {
  const end = words.indexOf('--');
  if (end < 0 || words.length !== end + 4 || !/(^|\/)bwrap$/.test(words[0] as string)) return undefined;
  const opts = words.slice(0, end);
  const [shell, dashC, outer] = words.slice(end + 1) as [string, string, string];
  if (dashC !== '-c' || !opts.includes('--unshare-net')) return undefined;
  const sockets = [...new Set(inputs.sockets)];
  if (sockets.length === 0 || sockets.some((s) => !s.startsWith('/'))) return undefined;
  // The runtime's `<shell> -c '<relays>\n<command line>'`.
  const o = parseQuotedWords(outer);
  if (!o || o.length !== 3 || o[0] !== shell || o[1] !== '-c') return undefined;
  const lines = (o[2] as string).split('\n');
  const last = lines.pop();
  if (last === undefined) return undefined;
  const relayText = normalisedRelayLines(lines, sockets, inputs.socat);
  if (relayText !== RELAY_LINES) return undefined;
  const cmd = commandLine(last, shell, inputs.command);
  if (cmd === undefined) return undefined;
  // Each socket bound in as `--bind <path> <path>`, and named nowhere else.
  const kept: string[] = [];
  let removed = 0;
  for (let i = 0; i < opts.length; i++) {
    if (opts[i] === '--bind' && sockets.includes(opts[i + 1] as string) && opts[i + 2] === opts[i + 1]) {
      i += 2;
      removed++;
      continue;
    }
    kept.push(opts[i] as string);
  }
  if (removed !== sockets.length || kept.some((w) => sockets.some((s) => w.includes(s)))) return undefined;
  return [...kept, '--', shell, '-c', cmd];
}

/** What the runtime's no-proxy branch runs: the helper line as it is, or (no helper) the command itself. */
function commandLine(last: string, shell: string, command: string): string | undefined {
  const w = parseQuotedWords(last);
  if (!w) return undefined;
  if (w.length === 2 && w[0] === 'eval' && w[1] === command) return command;
  if (w.length === 5 && /^SRT_ALLOW_NESTED_USERNS=[01]$/.test(w[0] as string) && /(^|\/)apply-seccomp$/.test(w[1] as string) && w[2] === shell && w[3] === '-c' && w[4] === command) return last;
  return undefined;
}
