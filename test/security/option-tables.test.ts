// The option tables of the read-only list must be complete, or GNU abbreviation resolution is unsound: if the
// real program had an option our table lacks, `--x` could mean it there and something safe here. For the
// programs whose tables hold unsafe options, every one-letter long prefix is put to the installed program (its
// getopt lists all candidates of an ambiguous prefix, undocumented ones included) and compared with the table.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SPECS } from '../../src/tools/shell/grammars.js';

// Every GNU-style program of the list. Not hostname (a one-letter prefix can resolve to --boot, which sets the
// host name), not the builtins (type, pwd), which (getopts, no long options), locale (argp), egrep/fgrep (grep).
const CHECKED = Object.keys(SPECS).filter((p) => !['hostname', 'type', 'pwd', 'which', 'locale', 'egrep', 'fgrep'].includes(p));
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

const dir = mkdtempSync(join(tmpdir(), 'agentd-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the installed program says about `--<letter>` for each letter: its candidates, or 'unknown'/'one'. */
function probe(program: string): Record<string, string[] | 'unknown' | 'one'> {
  // One shell runs the 26 probes (stdin closed, in an empty directory, 2 s each).
  // stdout (help, version, listings) is dropped: only getopt's messages on stderr matter. tail may follow stdin.
  const run = program === 'tail' ? 'timeout 1 tail' : program;
  const script = [...LETTERS].map((l) => `echo "@@${l}"; ${run} --${l} 2>&1 >/dev/null </dev/null`).join('\n');
  const r = spawnSync('bash', ['-c', script], { cwd: dir, env: { PATH: '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C' }, encoding: 'utf8', timeout: 60_000 });
  const out: Record<string, string[] | 'unknown' | 'one'> = {};
  for (const chunk of r.stdout.split('@@').slice(1)) {
    const letter = chunk[0] as string;
    const text = chunk.slice(1);
    if (/ambiguous/.test(text)) out[letter] = [...text.matchAll(/'--([A-Za-z0-9-]+)'/g)].map((m) => m[1] as string).filter((n, i, all) => n.startsWith(letter) && n !== letter && all.indexOf(n) === i).sort();
    else if (/unrecognized option|invalid option/.test(text)) out[letter] = 'unknown';
    else out[letter] = 'one';
  }
  return out;
}

/** For each short letter of the table: does the installed program want a value for a bare `-X`? */
function probeShort(program: string, letters: string[]): Record<string, 'value' | 'invalid' | 'flag'> {
  const script = letters.map((l) => `echo "@@${l}"; timeout 1 ${program} -${l} </dev/null 2>&1 | head -3`).join('\n');
  const r = spawnSync('bash', ['-c', script], { cwd: dir, env: { PATH: '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C' }, encoding: 'utf8', timeout: 60_000 });
  const out: Record<string, 'value' | 'invalid' | 'flag'> = {};
  for (const chunk of r.stdout.split('@@').slice(1)) {
    const text = chunk.slice(1);
    out[chunk[0] as string] = /requires an argument/.test(text) ? 'value' : /invalid option|unrecognized option/.test(text) ? 'invalid' : 'flag';
  }
  return out;
}

describe('short options take values as the installed programs take them', () => {
  for (const program of CHECKED) {
    it(`${program}: a letter takes a value here exactly when it does there`, () => {
      const spec = SPECS[program];
      if (!spec) throw new Error(`${program} has no table`);
      // Only the letters we say take a value: were one a flag there, `-Xo F` would hide an -o from us. (A letter
      // we call a flag that takes a value there only makes us see options that are not there: safe.)
      const letters = [...spec.g.short.entries()].filter(([, d]) => d.arg === 'required').map(([l]) => l);
      const real = probeShort(program, letters);
      const wrong = letters.flatMap((l) => {
        const ours = spec.g.short.get(l)?.arg;
        const r = real[l];
        if (r === 'invalid') return [`-${l} is not an option of the installed ${program}`];
        if (r !== 'value') return [`-${l}: ours ${ours}, the program ${r}`];
        return [];
      });
      expect(wrong).toEqual([]);
    });
  }
});

describe('long options resolve as the installed programs resolve them', () => {
  for (const program of CHECKED) {
    it(`${program}: every one-letter prefix resolves as the real getopt_long resolves it`, () => {
      const spec = SPECS[program];
      if (!spec) throw new Error(`${program} has no table`);
      const real = probe(program);
      const wrong: string[] = [];
      for (const l of LETTERS) {
        const names = [...spec.g.long.keys()].filter((n) => n.startsWith(l)).sort();
        const r = real[l];
        // Sound: where we resolve `--l` to one option, so does the program (we refuse everything else).
        if (names.length === 1 && r !== 'one') wrong.push(`--${l}: we resolve it to --${names[0]}, the program says ${JSON.stringify(r)}`);
        // Complete: every option the program lists for an ambiguous prefix is in our table.
        if (Array.isArray(r)) for (const n of r) if (!names.includes(n)) wrong.push(`--${n} is missing from the table`);
        // The program knows options under `--l` that we do not: the table is incomplete.
        if (r === 'one' && names.length === 0) wrong.push(`--${l} names an option missing from the table`);
      }
      expect(wrong).toEqual([]);
    });
  }
});
