// `npm run fuzz`: the shell oracle (test/security/oracle.test.ts) with a random seed and a large budget.
// AGENTD_FUZZ_RUNS (default 20000) and AGENTD_FUZZ_SEED (default: random, printed) override. A failing seed
// prints the command and what it leaked or wrote: add it to test/security/probes.ts as a probe.
import { spawnSync } from 'node:child_process';

const runs = process.env.AGENTD_FUZZ_RUNS ?? '20000';
const seed = process.env.AGENTD_FUZZ_SEED ?? String(Math.floor(Math.random() * 2 ** 31));
process.stderr.write(`shell oracle fuzz: seed ${seed}, ${runs} runs\n`);
const r = spawnSync('npx', ['vitest', 'run', 'test/security/oracle.test.ts', '--testTimeout', '0'], {
  stdio: 'inherit',
  env: { ...process.env, AGENTD_FUZZ_RUNS: runs, AGENTD_FUZZ_SEED: seed },
});
process.exit(r.status ?? 1);
