// Where the command sandbox's time goes once its wrap is reused (issue 14.4): the invocation the runtime made,
// run whole and cut down step by step, alternating so every step sees the same machine load. Each step adds
// one layer to the previous: bubblewrap alone, its namespaces, the runtime's mounts and environment, the
// seccomp helper, the two socat relays to the proxy (and the shell loop that waits for them to listen), and
// agentd's own shell with its startup file. Medians per step; the differences between steps are the costs.
import { spawn } from 'node:child_process';
import type { WrappedCommand } from '../../src/tools/sandbox/runtime.js';
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
  const steps: Array<[string, string[]]> = [
    ['bash -c true (no sandbox)', ['bash', '-c', 'true']],
    ['+ bwrap --ro-bind / / (no namespaces of its own)', ['bwrap', '--ro-bind', '/', '/', shell, '-c', 'true']],
    ['+ user, pid and net namespaces, /proc, /dev', ['bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--unshare-user', '--unshare-pid', '--unshare-net', '--proc', '/proc', shell, '-c', 'true']],
    ["+ the runtime's mounts and environment", [...pre, '--', shell, '-c', 'true']],
    ['+ the seccomp helper', [...pre, '--', shell, '-c', `${helper} ${shell} -c true`]],
    ['+ the relays to the proxy (the whole runtime)', [...pre, '--', shell, '-c', relaysThen(`${helper} ${shell} -c true`)]],
    ["+ agentd's shell (the whole invocation)", a],
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
