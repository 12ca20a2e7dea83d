// `auth status --json` (issue 10): the ACP adapter runs it at initialize, at every new or loaded session and at
// the start of every prompt, so it must be answered locally and fast (target: ≤ 100 ms spawn → exit). Each run
// checks the answer is the JSON the adapter parses (a boolean `loggedIn`), so a broken build cannot look fast.
import { spawn } from 'node:child_process';
import { perSubject, place } from './session.js';
import { summarize } from './stats.js';
import { STREAM_ARGS, type Subject } from './subjects.js';
import { type Benchmark, type Row, agentdTarget } from './types.js';

/** Spawn → exit of `<subject> auth status --json`, in ms; throws unless stdout is the expected JSON. */
function timeAuthStatus(subject: Subject, where: { home: string; cwd: string }): Promise<number> {
  // The subject's command line up to its protocol flags (bin/agentd, or node <profile flags> bin/agentd), then the subcommand.
  const spec = subject.spec({ ...where });
  const at = spec.args.indexOf(STREAM_ARGS[0]);
  const args = [...spec.args.slice(0, at === -1 ? spec.args.length : at), 'auth', 'status', '--json'];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(spec.command, args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      try {
        const parsed: unknown = JSON.parse(out);
        if (typeof parsed !== 'object' || parsed === null || !('loggedIn' in parsed) || typeof parsed.loggedIn !== 'boolean') throw new Error('no boolean loggedIn');
        if (code !== 0) throw new Error(`exit ${String(code)} with an API key set`);
      } catch (err) {
        reject(new Error(`auth status --json: ${err instanceof Error ? err.message : String(err)}: ${out.slice(0, 200)}`));
        return;
      }
      resolve(ms);
    });
  });
}

export const authStatusJson: Benchmark = {
  name: 'auth-status-json',
  description:
    '`auth status --json` spawn → exit (what the ACP adapter runs at initialize, every session and every prompt), API key in the environment, no network.',
  async run(ctx) {
    const subjects = ctx.subjects(['agentd', 'claude']);
    const base = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({
      bench: 'auth-status-json',
      metric: 'auth status --json: spawn → exit',
      subject: s.id === 'agentd' ? 'agentd' : s.label,
      unit: 'ms',
      ...agentdTarget(s, '<=', 100),
    });
    return perSubject(ctx, subjects, base, async (s) => {
      const where = place(ctx, 'auth-status-json', s);
      const times: number[] = [];
      // run 0 warms the page cache
      for (let i = 0; i <= (ctx.quick ? 5 : 20); i++) {
        const t = await timeAuthStatus(s, where);
        if (i > 0) times.push(t);
      }
      const st = summarize(times);
      return { ...base(s), n: st.n, nLabel: 'runs', median: st.median, p90: st.p90 };
    });
  },
};
