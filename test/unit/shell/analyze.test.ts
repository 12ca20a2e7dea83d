// The shell command analyser against a corpus: plain commands, every way of chaining and nesting commands,
// wrappers, quoting tricks and the bypass attempts a permission check must not fall for.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CommandAnalysis,
  analyzeCommand,
  analyzeCommandSync,
  isReadOnlyCommand,
  renderSegment,
  segmentForms,
  warmShellParser,
} from '../../../src/tools/shell/index.js';

type Flag = 'sub' | 'red' | 'bg' | 'dyn';

interface Expected {
  segments: string[];
  flags?: Flag[];
  ro?: boolean;
  ok?: boolean;
}

function summarize(a: CommandAnalysis): Required<Expected> {
  const flags: Flag[] = [];
  if (a.hasSubstitution) flags.push('sub');
  if (a.hasRedirection) flags.push('red');
  if (a.hasBackground) flags.push('bg');
  if (a.dynamic) flags.push('dyn');
  return { ok: a.ok, segments: a.segments.map(renderSegment), flags, ro: isReadOnlyCommand(a) };
}

const CASES: Array<[string, Expected]> = [
  // Plain and read-only.
  ['ls -la', { segments: ['ls -la'], ro: true }],
  ['git status', { segments: ['git status'], ro: true }],
  ['git log --oneline | head -5', { segments: ['git log --oneline', 'head -5'], ro: true }],
  ['cat file | grep x | wc -l', { segments: ['cat file', 'grep x', 'wc -l'], ro: true }],
  ['ls && pwd; echo done', { segments: ['ls', 'pwd', 'echo done'], ro: true }],
  ['ls -la # rm -rf x', { segments: ['ls -la'], ro: true }],
  ['ls \\\n  -la', { segments: ['ls -la'], ro: true }],
  ['echo hi > /dev/null 2>&1', { segments: ['echo hi'], ro: true }],
  ['echo hi >&2', { segments: ['echo hi'], ro: true }],
  ['grep foo < in.txt', { segments: ['grep foo'], flags: ['red'], ro: true }],
  ['[ -f x ] && echo yes', { segments: ['[ -f x ]', 'echo yes'], ro: true }],
  ['[[ -f x && -d y ]]', { segments: ['[[ -f x && -d y ]]'], ro: true }],
  ['! grep -q x f', { segments: ['grep -q x f'], ro: true }],
  ['LANG=C sort f', { segments: ['sort f'], ro: true }],
  ['find . -name "*.ts" -type f', { segments: ['find . -name *.ts -type f'], ro: true }],
  ['command -v git', { segments: ['command -v git'], ro: true }],
  ['git branch -a', { segments: ['git branch -a'], ro: true }],
  ["echo 'a;b' \"c d\"", { segments: ['echo a;b c d'], ro: true }],
  ["echo '$HOME'", { segments: ['echo $HOME'], ro: true }],
  ["echo $'\\x72m\\tx'", { segments: ['echo rm\tx'], ro: true }],
  ['cat <<EOF\nhello\nEOF', { segments: ['cat'], ro: true }],
  ["cat <<'EOF'\n$(rm x) `rm y`\nEOF", { segments: ['cat'], ro: true }],
  ['nice -n 5 timeout 10 cat x', { segments: ['cat x'], ro: true }],
  // xargs appends arguments read from stdin (e.g. `-delete` for find): never read-only.
  ['xargs grep foo', { segments: ['grep foo'], ro: false }],
  // A shell is never a read-only wrapper (its startup files and options are beyond the analyser).
  ['bash -c "ls -la"', { segments: ['ls -la'], ro: false }],
  // Lists, pipelines and newlines: every command is a segment.
  ['git status; rm -rf x', { segments: ['git status', 'rm -rf x'] }],
  ['git status && rm x', { segments: ['git status', 'rm x'] }],
  ['git status || rm x', { segments: ['git status', 'rm x'] }],
  ['git status\nrm x', { segments: ['git status', 'rm x'] }],
  ['ls | xargs rm', { segments: ['ls', 'rm'] }],
  ['ls |& tee out', { segments: ['ls', 'tee out'] }],
  ['(rm x)', { segments: ['rm x'] }],
  ['{ rm x; }', { segments: ['rm x'] }],
  ['(cd /tmp && rm x)', { segments: ['cd /tmp', 'rm x'] }],
  ['if grep -q x f; then rm f; fi', { segments: ['grep -q x f', 'rm f'] }],
  ['while true; do rm x; done', { segments: ['true', 'rm x'] }],
  ['f() { rm x; }; f', { segments: ['rm x', 'f'] }],
  ['case a in a) rm y;; esac', { segments: ['rm y'] }],
  // Substitutions run commands while words expand.
  ['echo $(rm x)', { segments: ['echo $(rm x)', 'rm x'], flags: ['sub', 'dyn'] }],
  ['echo "a$(rm x)b"', { segments: ['echo "a$(rm x)b"', 'rm x'], flags: ['sub', 'dyn'] }],
  ['echo `rm x`', { segments: ['echo `rm x`', 'rm x'], flags: ['sub', 'dyn'] }],
  ['cat <(rm x)', { segments: ['cat <(rm x)', 'rm x'], flags: ['sub', 'dyn'] }],
  ['ls > >(rm x)', { segments: ['ls', 'rm x'], flags: ['sub', 'red', 'dyn'] }],
  ['a=$(rm x) ls', { segments: ['ls', 'rm x'], flags: ['sub', 'dyn'] }],
  ['echo ${x:-$(rm y)}', { segments: ['echo ${x:-$(rm y)}', 'rm y'], flags: ['sub', 'dyn'] }],
  ['cat <<EOF\n$(rm x)\nEOF', { segments: ['cat', 'rm x'], flags: ['sub', 'dyn'] }],
  ['cat <<EOF && rm y\nhi\nEOF', { segments: ['cat', 'rm y'] }],
  ['cat <<EOF | sh\nrm x\nEOF', { segments: ['cat', 'sh'] }],
  // Nested backticks and backticks in heredoc bodies are not understood by the grammar: not trusted.
  ['echo `echo \\`rm x\\``', { ok: false, segments: ['echo `echo \\`rm x\\``', 'echo `rm x`'], flags: ['sub', 'dyn'] }],
  ['cat <<EOF\n`rm x`\nEOF', { ok: false, segments: ['cat'], flags: ['sub', 'dyn'] }],
  // Wrappers are stripped; the inner command is the segment.
  ['env FOO=1 rm x', { segments: ['rm x'] }],
  ["sh -c 'rm x'", { segments: ['rm x'] }],
  ['bash -c "rm x; ls"', { segments: ['rm x', 'ls'] }],
  ['bash -lc "rm x"', { segments: ['rm x'] }],
  ['eval "rm x"', { segments: ['rm x'] }],
  ['eval rm x', { segments: ['rm x'] }],
  ['time rm x', { segments: ['rm x'] }],
  ['time -p rm x', { segments: ['rm x'] }],
  ['nohup rm x', { segments: ['rm x'] }],
  ['timeout -s KILL 5 rm x', { segments: ['rm x'] }],
  ['nice -10 rm x', { segments: ['rm x'] }],
  ['command rm x', { segments: ['rm x'] }],
  ['exec rm x', { segments: ['rm x'] }],
  ['sudo -u root rm x', { segments: ['rm x'] }],
  ['sudo -u root env A=1 nice -n 5 rm x', { segments: ['rm x'] }],
  ['xargs -n1 -I{} rm {}', { segments: ['rm {}'] }],
  ['stdbuf -oL rm x', { segments: ['rm x'] }],
  ['timeout 5 bash -c "sh -c \'rm x\'"', { segments: ['rm x'] }],
  ['env -S "rm x"', { segments: ['rm x'] }],
  ['env - PATH=/x rm x', { segments: ['rm x'] }],
  ['find . -name x -exec rm {} \\;', { segments: ['find . -name x -exec rm {} ;', 'rm {}'] }],
  ['find . -execdir sh -c "rm x" \\;', { segments: ['find . -execdir sh -c rm x ;', 'rm x'] }],
  ['find . -delete', { segments: ['find . -delete'] }],
  ["trap 'rm x' EXIT", { segments: ['trap rm x EXIT', 'rm x'] }],
  ['coproc cat', { segments: ['cat'], flags: ['bg'] }],
  // Quoting tricks: quote removal gives the real name.
  ["'r''m' -rf x", { segments: ['rm -rf x'] }],
  ['"rm" x', { segments: ['rm x'] }],
  ['r\\m x', { segments: ['rm x'] }],
  ['\\rm x', { segments: ['rm x'] }],
  ["r'm' x", { segments: ['rm x'] }],
  ["$'\\x72\\x6d' x", { segments: ['rm x'] }],
  // Redirections.
  ['ls > f', { segments: ['ls'], flags: ['red'] }],
  ['ls >> f', { segments: ['ls'], flags: ['red'] }],
  ['ls 2> f', { segments: ['ls'], flags: ['red'] }],
  ['ls &> f', { segments: ['ls'], flags: ['red'] }],
  ['ls >| f', { segments: ['ls'], flags: ['red'] }],
  ['> f', { segments: [''], flags: ['red'] }],
  ['exec 3> f', { segments: ['exec'], flags: ['red'] }],
  ['{ ls; pwd; } > out', { segments: ['ls', 'pwd'], flags: ['red'] }],
  ['time -o out ls', { segments: ['ls'], flags: ['red'] }],
  // Background.
  ['sleep 30 &', { segments: ['sleep 30'], flags: ['bg'] }],
  ['sleep 30 & echo started', { segments: ['sleep 30', 'echo started'], flags: ['bg'] }],
  ['(ls &)', { segments: ['ls'], flags: ['bg'] }],
  // Dynamic words.
  ['$X a', { segments: ['$X a'], flags: ['dyn'] }],
  ['${CMD} x', { segments: ['${CMD} x'], flags: ['dyn'] }],
  ['ls $HOME', { segments: ['ls $HOME'], flags: ['dyn'] }],
  ['echo "$HOME"', { segments: ['echo "$HOME"'], flags: ['dyn'] }],
  ['ls$IFS-la', { segments: ['ls$IFS-la'], flags: ['dyn'] }],
  ['ls *.ts', { segments: ['ls *.ts'], flags: ['dyn'] }],
  ['ls file?.txt', { segments: ['ls file?.txt'], flags: ['dyn'] }],
  ['ls [ab].txt', { segments: ['ls [ab].txt'], flags: ['dyn'] }],
  ['echo ~/x', { segments: ['echo ~/x'], flags: ['dyn'] }],
  ['echo {a,b}', { segments: ['echo {a,b}'], flags: ['dyn'] }],
  ['echo {1..3}', { segments: ['echo {1..3}'], flags: ['dyn'] }],
  ['echo $((1+2))', { segments: ['echo $((1+2))'], flags: ['dyn'] }],
  ['(( x = 1 ))', { segments: [], flags: ['dyn'] }],
  ["[[ 'a[$(id)]' -eq 1 ]]", { segments: ['[[ a[$(id)] -eq 1 ]]'], flags: ['dyn'] }],
  ['sh -c "$CMD"', { segments: ['sh -c "$CMD"'], flags: ['dyn'] }],
  ["sh -c 'cat $1' _ x", { segments: ['cat $1'], flags: ['dyn'] }],
  ['for f in a b; do rm $f; done', { segments: ['rm $f'], flags: ['dyn'] }],
  // Read-only commands with writing options are not read-only.
  ['git branch new-branch', { segments: ['git branch new-branch'] }],
  ['git -c core.pager=evil log', { segments: ['git -c core.pager=evil log'] }],
  ['git diff --output=x', { segments: ['git diff --output=x'] }],
  ['sort -o out in', { segments: ['sort -o out in'] }],
  ['sort -k1 in', { segments: ['sort -k1 in'], ro: true }],
  ['uniq in out', { segments: ['uniq in out'] }],
  ['rg --pre ./evil x', { segments: ['rg --pre ./evil x'] }],
  ['PATH=. ls', { segments: ['ls'] }],
  ['sudo ls', { segments: ['ls'] }],
  ['./ls', { segments: ['./ls'] }],
  ['echo x | tee out', { segments: ['echo x', 'tee out'] }],
  ['date 0101', { segments: ['date 0101'] }],
  // declare/export with a value: opaque (a value can be evaluated as code: `declare -i`, subscripts).
  ['export A=1', { segments: ['export A=1'], flags: ['dyn'] }],
  ['A=1', { segments: [''] }],
  // Not understood: never an exception, always ok:false.
  ['echo "unterminated', { ok: false, segments: ['echo'] }],
  ['ls ((', { ok: false, segments: ['ls'] }],
  ['echo \\$(rm x)', { ok: false, segments: [] }],
  ['ls\rrm x', { ok: false, segments: [] }],
  // tree-sitter-bash misreads this newline and joins `c` and `rm x` into `c rm x`, hiding rm. Detected.
  ['a | b | c\nrm x && d', { ok: false, segments: [] }],
];

describe('analyzeCommand corpus', () => {
  it('has enough cases to mean something', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
  });

  for (const [cmd, want] of CASES) {
    it(JSON.stringify(cmd), async () => {
      const got = summarize(await analyzeCommand(cmd));
      const expected: Required<Expected> = { ok: want.ok ?? true, segments: want.segments, flags: want.flags ?? [], ro: want.ro ?? false };
      if (!expected.ok) {
        // What a failed parse lists is not a contract; only that it failed and is not read-only.
        expect({ ok: got.ok, ro: got.ro }).toEqual({ ok: false, ro: false });
        return;
      }
      expect(got).toEqual(expected);
    });
  }
});

describe('segment details', () => {
  it('records stripped wrappers, assignments and redirects on the inner command', async () => {
    const a = await analyzeCommand('sudo -u root env A=1 B="x y" nice -n 5 rm -rf "my dir" 2>/dev/null > log');
    expect(a.segments).toEqual([
      {
        argv: ['rm', '-rf', 'my dir'],
        redirects: [
          { op: '>', fd: 2, target: '/dev/null', kind: 'write' },
          { op: '>', fd: null, target: 'log', kind: 'write' },
        ],
        assignments: ['A=1', 'B=x y'],
        wrappers: ['sudo', 'env', 'nice'],
        dynamic: false,
        opaque: false,
        chdir: false,
        readPaths: [],
        readsKnown: false,
        writePaths: ['log'],
        text: 'sudo -u root env A=1 B="x y" nice -n 5 rm -rf "my dir"',
      },
    ]);
    expect(a.hasRedirection).toBe(true);
  });

  it('classifies redirects', async () => {
    const a = await analyzeCommand('cmd < in 2>&1 >&- 3>>app');
    expect({ ok: a.ok, redirects: a.segments[0]?.redirects }).toEqual({
      ok: true,
      redirects: [
        { op: '<', fd: null, target: 'in', kind: 'read' },
        { op: '>&', fd: 2, target: '1', kind: 'dup' },
        { op: '>&-', fd: null, target: '-', kind: 'dup' },
        { op: '>>', fd: 3, target: 'app', kind: 'write' },
      ],
    });
    const h = await analyzeCommand('grep x <<< "s" 2>/dev/null');
    expect(h.segments[0]?.redirects).toEqual([
      { op: '<<<', fd: null, target: 's', kind: 'herestring' },
      { op: '>', fd: 2, target: '/dev/null', kind: 'write' },
    ]);
    expect(isReadOnlyCommand(h)).toBe(true);
  });

  it('gives the inner commands of sh -c the outer wrappers, assignments and redirects', async () => {
    const a = await analyzeCommand("FOO=1 timeout 5 sh -c 'ls; rm x' > out");
    expect(a.segments.map((s) => ({ argv: s.argv, wrappers: s.wrappers, assignments: s.assignments, redirects: s.redirects.length }))).toEqual([
      { argv: ['ls'], wrappers: ['timeout', 'sh'], assignments: ['FOO=1'], redirects: 1 },
      { argv: ['rm', 'x'], wrappers: ['timeout', 'sh'], assignments: ['FOO=1'], redirects: 1 },
    ]);
  });

  it('explains why a command cannot be checked', async () => {
    expect((await analyzeCommand('ls $HOME')).reasons).toEqual(["A variable in this command can't be checked before it runs"]);
    expect((await analyzeCommand('ls *.ts')).reasons).toEqual([
      "A wildcard in this command expands to file names that can't be checked before it runs",
    ]);
    expect((await analyzeCommand('echo "x')).reasons).toEqual([
      'This command could not be parsed, so what it runs cannot be checked',
      'The shell may read this command differently from the analyser (heredoc delimiter, quoting), so it cannot be checked',
    ]);
    expect((await analyzeCommand('ls -la')).reasons).toEqual([]);
  });

  it('offers the bare program name as a second form for rules when the command names a path', async () => {
    const [rm] = (await analyzeCommand('/bin/rm -rf x')).segments;
    const [ls] = (await analyzeCommand('ls -la')).segments;
    expect(rm && segmentForms(rm)).toEqual(['/bin/rm -rf x', 'rm -rf x']);
    expect(ls && segmentForms(ls)).toEqual(['ls -la']);
  });

  it('refuses deep shell nesting and control characters instead of guessing', async () => {
    let cmd = 'rm x';
    for (let i = 0; i < 8; i++) cmd = `sh -c ${JSON.stringify(cmd).replace(/\$/g, '\\$')}`;
    const deep = await analyzeCommand(cmd);
    expect({ ok: deep.ok, reasons: deep.reasons }).toEqual({ ok: false, reasons: ['This command nests shells too deeply to be checked'] });
    const ctl = await analyzeCommand('ls\u0000rm x');
    expect(ctl.ok).toBe(false);
  });

  it('answers synchronously once the parser is loaded, and shares frozen results', async () => {
    await warmShellParser();
    const sync = analyzeCommandSync('git status && ls');
    expect(sync && summarize(sync)).toEqual({ ok: true, segments: ['git status', 'ls'], flags: [], ro: true });
    const again = await analyzeCommand('git status && ls');
    expect(again).toBe(sync);
    expect(Object.isFrozen(again.segments[0])).toBe(true);
  });
});

describe('analyzeCommand properties', () => {
  it('never throws, whatever the input', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60, unit: fc.constantFrom(...'ab $(){}|&;<>\'"`\\\n*~=-#!'.split('')) }), async (s) => {
        const a = await analyzeCommand(s);
        expect(typeof a.ok).toBe('boolean');
        if (!a.ok) expect(isReadOnlyCommand(a)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('splits any chain of simple commands into exactly those commands', async () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,6}$/);
    const command = fc.array(word, { minLength: 1, maxLength: 4 }).map((ws) => ws.join(' '));
    const op = fc.constantFrom(' ; ', ' && ', ' || ', ' | ', '\n', ' |& ');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(command, op), { minLength: 1, maxLength: 5 }), async (parts) => {
        // Reserved words would start compound commands; they are not what this property is about.
        fc.pre(parts.every(([c]) => !/^(if|then|else|elif|fi|do|done|for|while|until|case|esac|in|function|select|time|coproc)( |$)/.test(c)));
        const line = parts.map(([c, o], i) => (i === parts.length - 1 ? c : c + o)).join('');
        const a = await analyzeCommand(line);
        // The grammar sometimes misreads newlines inside pipelines (joining two lines into one command); the
        // analyser must then say it could not parse. Whenever it says ok, the segments must be exact.
        if (!line.includes('\n')) expect(a.ok).toBe(true);
        if (a.ok) expect(a.segments.map(renderSegment)).toEqual(parts.map(([c]) => c));
      }),
      { numRuns: Number(process.env['SHELL_PROPERTY_RUNS'] ?? 200) },
    );
  });

  it('finds every command of randomly nested programs (subshells, blocks, substitutions, pipelines)', async () => {
    // A small program generator that also returns the names of the simple commands it contains.
    type Gen = { text: string; names: string[] };
    const name = fc.constantFrom('ls', 'rm', 'cat', 'git', 'echo', 'mv', 'curl');
    const plain = fc.stringMatching(/^[a-z][a-z0-9]{0,4}$/).filter((w) => !RESERVED.has(w));
    const literal = fc.oneof(
      plain,
      plain.map((w) => `'${w} ;|&'`),
      plain.map((w) => `"${w} x"`),
      plain.map((w) => `${w}\\;`),
    );
    const tree = fc.letrec<{ list: Gen; item: Gen; simple: Gen }>((tie) => ({
      simple: fc
        .tuple(name, fc.array(fc.oneof({ weight: 4, arbitrary: literal.map((w) => ({ text: w, names: [] as string[] })) }, { weight: 1, arbitrary: tie('list').map((l) => ({ text: `"$( ${l.text} )"`, names: l.names })) }), { maxLength: 3 }), fc.constantFrom('', ' > out', ' 2>&1', ' < in'))
        .map(([n, args, redirect]) => ({ text: [n, ...args.map((a) => a.text)].join(' ') + redirect, names: [n, ...args.flatMap((a) => a.names)] })),
      item: fc.oneof(
        { weight: 5, arbitrary: tie('simple') },
        { weight: 1, arbitrary: tie('list').map((l) => ({ text: `( ${l.text} )`, names: l.names })) },
        { weight: 1, arbitrary: tie('list').map((l) => ({ text: `{ ${l.text}; }`, names: l.names })) },
      ),
      list: fc
        .array(fc.tuple(tie('item'), fc.constantFrom(' ; ', ' && ', ' || ', ' | ')), { minLength: 1, maxLength: 3 })
        .map((parts) => ({
          text: parts.map(([it, op], i) => (i === parts.length - 1 ? it.text : it.text + op)).join(''),
          names: parts.flatMap(([it]) => it.names),
        })),
    }));
    await fc.assert(
      fc.asyncProperty(tree.list, async (prog) => {
        const a = await analyzeCommand(prog.text);
        expect(a.ok).toBe(true);
        expect(a.segments.map((s) => s.argv[0]).sort()).toEqual([...prog.names].sort());
      }),
      { numRuns: Number(process.env['SHELL_PROPERTY_RUNS'] ?? 200) },
    );
  });
});

const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'for', 'while', 'until', 'case', 'esac', 'in', 'function', 'select', 'time', 'coproc']);
