// Where the command sandbox's time goes once its wrap is reused (issue 14.4): the invocation the runtime made
// (with a host allowed, so with the relays to its proxy), run whole and cut down step by step, alternating so
// every step sees the same machine load. Each step adds one layer to the previous: bubblewrap alone, its
// namespaces, the runtime's mounts and environment, the seccomp helper, agentd's own shell with its startup
// file (which is agentd's whole invocation when no host is allowed: offline.ts leaves the relays out), then the
// two socat relays to the proxy (and the shell loop that waits for them to listen) without and with agentd's
// shell. Medians per step; the differences between steps are the costs.
import { spawn } from 'node:child_process';
import type { WrappedCommand } from '../../src/tools/sandbox/runtime.js';
import { withoutRelays } from '../../src/tools/sandbox/offline.js';
import { parseQuotedWords } from '../../src/tools/sandbox/wrap-cache.js';
import { SANDBOXED_SHELL_COMMAND } from '../../src/tools/shell/init-script.js';
import { summarize } from './stats.js';
import type { Row } from './types.js';

export async function sandboxBreakdown(name: string, w: WrappedCommand, env: Record<string, string>, runs: number): Promise<Row[]> {
  const a = w.argv;
  const cut = a.indexOf('--');
  const inner = a[cut + 3];
  if (a[0] !== 'bwrap' && !a[0]?.endsWith('/bwrap')) throw new Error(`not bubblewrap's argv: ${a[0]}`);
  if (cut < 0 || a[cut + 1] === undefined || a[cut + 2] !== '-c' || inner === undefined) throw new Error('unexpected invocation');
  const shell = a[cut + 1] as string;
  const pre = a.slice(0, cut);
  // The last line of the inner script runs the command (through the seccomp helper); the lines before it start
  // the relays and wait for them.
  const lines = inner.split('\n');
  const last = lines[lines.length - 1] as string;
  const helper = /^(SRT_ALLOW_NESTED_USERNS=\d \S+apply-seccomp) /.exec(last.replace(/^\S+ -c '/, ''))?.[1];
  if (!helper) throw new Error('no seccomp helper line in the invocation');
  const relaysThen = (cmd: string) => [...lines.slice(0, -1), `${cmd}'`].join('\n');
  // The proxy bridge's sockets, as the relays name them.
  const sockets = [...new Set([...(parseQuotedWords(inner)?.[2] ?? '').matchAll(/UNIX-CONNECT:(\/\S+?\.sock)/g)].map((m) => m[1] as string))];
  const offline = withoutRelays(a, { sockets, command: SANDBOXED_SHELL_COMMAND, socat: 'socat' });
  if (!offline) throw new Error('the invocation has no relays agentd can leave out');
  const steps: Array<[string, string[]]> = [
    ['bash -c true (no sandbox)', ['bash', '-c', 'true']],
    ['+ bwrap --ro-bind / / (no namespaces of its own)', ['bwrap', '--ro-bind', '/', '/', shell, '-c', 'true']],
    ['+ user, pid and net namespaces, /proc, /dev', ['bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--unshare-user', '--unshare-pid', '--unshare-net', '--proc', '/proc', shell, '-c', 'true']],
    ["+ the runtime's mounts and environment", [...pre, '--', shell, '-c', 'true']],
    ['+ the seccomp helper', [...pre, '--', shell, '-c', `${helper} ${shell} -c true`]],
    ["+ agentd's shell: agentd's whole invocation with no host allowed (no relays)", offline],
    ['+ the relays to the proxy (the whole runtime, a host allowed)', [...pre, '--', shell, '-c', relaysThen(`${helper} ${shell} -c true`)]],
    ["+ agentd's shell: agentd's whole invocation with a host allowed", a],
  ];
  const run = (argv: string[]) =>
    new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      const c = spawn(argv[0] as string, argv.slice(1), { stdio: 'ignore', env });
      c.on('error', reject);
      c.on('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${argv[0]} exited ${code}`))));
    });
  const samples = steps.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) for (const [n, [, argv]] of steps.entries()) samples[n]?.push(await run(argv));
  return steps.map(([metric], n) => {
    const s = summarize(samples[n] as number[]);
    return { bench: name, unit: 'ms', metric: `spawn → exit: ${metric}`, subject: 'command sandbox, step by step', n: s.n, nLabel: 'runs', median: s.median, p90: s.p90 };
  });
}
