// Option grammars (src/tools/shell/options.ts) parse as GNU getopt_long does, and the analysis reports what a
// command reads (readPaths), and what makes it opaque.
import { describe, expect, it } from 'vitest';
import { grammar, parseArgs, resolveLong } from '../../../src/tools/shell/options.js';
import { analyzeCommand } from '../../../src/tools/shell/index.js';

const sortLike = grammar({ short: 'bru k:t: o:!', long: 'reverse random-sort random-source:@ output:! key: buffer-size: batch-size: check::' });

describe('parseArgs', () => {
  it('resolves unambiguous abbreviations against the whole table and refuses ambiguous ones', () => {
    expect(resolveLong(sortLike, 'out')).toMatchObject({ name: '--output' });
    expect(resolveLong(sortLike, 'o')).toMatchObject({ name: '--output' });
    expect(resolveLong(sortLike, 'r')).toBe('ambiguous');
    expect(resolveLong(sortLike, 'random-so')).toBe('ambiguous');
    expect(resolveLong(sortLike, 'random-sou')).toMatchObject({ name: '--random-source' });
    expect(resolveLong(sortLike, 'b')).toBe('ambiguous');
    expect(resolveLong(sortLike, 'bogus')).toBeUndefined();
    // An exact name wins over being a prefix of another.
    const g = grammar({ long: 'foo foobar:' });
    expect(resolveLong(g, 'foo')).toMatchObject({ name: '--foo' });
    expect(resolveLong(grammar({ long: 'output:', abbreviations: false }), 'out')).toBeUndefined();
  });

  it('takes values glued, separate and after =, and ends a cluster at a letter with a value', () => {
    const p = parseArgs(['-ubk2,2', '-t', ',', '--out=x', '--key', '1', 'f', '--', '-o'], sortLike);
    expect(p).toEqual({
      ok: true,
      options: [
        { def: { name: '-u', arg: 'none', role: 'safe' } },
        { def: { name: '-b', arg: 'none', role: 'safe' } },
        { def: { name: '-k', arg: 'required', role: 'safe' }, value: '2,2' },
        { def: { name: '-t', arg: 'required', role: 'safe' }, value: ',' },
        { def: { name: '--output', arg: 'required', role: 'unsafe' }, value: 'x' },
        { def: { name: '--key', arg: 'required', role: 'safe' }, value: '1' },
      ],
      operands: ['f', '-o'],
      rest: -1,
    });
    // -ko: "o" is -k's value, not the -o option.
    expect(parseArgs(['-ko'], sortLike)).toMatchObject({ ok: true, options: [{ def: { name: '-k' }, value: 'o' }] });
    expect(parseArgs(['-uo', 'x'], sortLike)).toMatchObject({ ok: true, options: [{ def: { name: '-u' } }, { def: { name: '-o' }, value: 'x' }] });
  });

  it('fails on unknown, ambiguous, missing or unexpected values', () => {
    expect(parseArgs(['-z'], sortLike)).toEqual({ ok: false, why: 'unknown option -z' });
    expect(parseArgs(['--r'], sortLike)).toEqual({ ok: false, why: 'ambiguous option --r' });
    expect(parseArgs(['-k'], sortLike)).toEqual({ ok: false, why: '-k needs a value' });
    expect(parseArgs(['--reverse=1'], sortLike)).toEqual({ ok: false, why: '--reverse takes no value' });
    // An optional value is taken only after `=`.
    expect(parseArgs(['--check', 'f'], sortLike)).toMatchObject({ ok: true, operands: ['f'] });
  });

  it('stops at the first operand for wrappers (no permutation)', () => {
    const env = grammar({ short: 'i u: C: S:', long: 'chdir: split-string: unset:', permute: false });
    expect(parseArgs(['-i', 'ls', '-C', 'x'], env)).toMatchObject({ ok: true, rest: 1, operands: ['ls', '-C', 'x'] });
    expect(parseArgs(['--ch=..', 'ls'], env)).toMatchObject({ ok: true, rest: 1, options: [{ def: { name: '--chdir' }, value: '..' }] });
    expect(parseArgs(['-i'], env)).toMatchObject({ ok: true, rest: 1 });
  });
});

describe('what the analysis reports', () => {
  it('lists read paths from operands, path options (glued or not) and input redirects', async () => {
    const read = async (c: string): Promise<string[][]> => (await analyzeCommand(c)).segments.map((s) => s.readPaths);
    expect(await read('date -f../x')).toEqual([['../x']]);
    expect(await read('file -m../m:/etc/magic f')).toEqual([['../m', '/etc/magic', 'f']]);
    expect(await read('hexdump -f fmt --format-f=fmt2 f')).toEqual([['fmt', 'fmt2', 'f']]);
    expect(await read('grep -rn pat')).toEqual([['.']]);
    expect(await read('grep -f pats -e x a b')).toEqual([['pats', 'a', 'b']]);
    expect(await read('sort --files0-from=l --random-source=r')).toEqual([['l', 'r']]);
    expect(await read('cat < in | wc -l')).toEqual([['in'], []]);
    expect(await read('find src lib -newer ref -name x')).toEqual([['src', 'lib', 'ref']]);
    expect(await read('timeout 5 head -n2 a')).toEqual([['a']]);
    const unknown = await analyzeCommand('python x.py < in');
    expect(unknown.segments.map((s) => [s.readPaths, s.readsKnown])).toEqual([[['in'], false]]);
  });

  it('lists write paths from output redirects and write options', async () => {
    const written = async (c: string): Promise<string[][]> => (await analyzeCommand(c)).segments.map((s) => s.writePaths);
    expect(await written('sort --o=.git/config f && git status')).toEqual([['.git/config'], []]);
    expect(await written('sort -uo out -T tmp f')).toEqual([['out', 'tmp']]);
    expect(await written('uniq a b > c 2>/dev/null')).toEqual([['c', 'b']]);
    expect(await written('find . -fprint list')).toEqual([['list']]);
    expect(await written('git log --outp=x')).toEqual([['x']]);
    expect(await written('echo hi >> .git/hooks/pre-commit')).toEqual([['.git/hooks/pre-commit']]);
  });

  it('marks code in values, hidden programs and parser disagreements opaque, and plain expansions not', async () => {
    const opaque = async (c: string): Promise<boolean> => (await analyzeCommand(c)).opaque;
    for (const c of ['ls ${x:=y}', 'ls ${y@P}', 'ls ${!x}', 'ls ${a[0]}', 'ls ${x:1}', 'echo $((x))', 'echo $(($_))', '((x))', 'let x=1', 'declare -i x', 'export A=1', 'a[1]=x', 'X=rm; $X', '"$X" a', 'source f', '. f', 'bash f', 'cat f | sh', 'PATH=. ls', 'env LD_PRELOAD=x ls', 'hash -p /bin/rm ls', 'printf -v x y', "test -v 'a[0]'", "read 'a[0]'", 'sh -c "$X"', 'eval "$X"', 'timeout --bogus 5 ls', "cat <<E'O'F\nx\nE'O'F", 'cat <<\\EOF\nx\nEOF', 'cat <<EOF\nx', 'echo "x', 'time { ls; }', 'bash -l -c ls', 'env -S ls', 'echo x | xargs sh -c', 'find . -exec sh -c {} \\;']) {
      expect([c, await opaque(c)]).toEqual([c, true]);
    }
    for (const c of ['ls $HOME', 'ls ${HOME}', 'echo ${#HOME}', 'echo $((1 + 2))', 'X=1; ls', "cat <<'EOF'\n$(x)\nEOF", 'cat <<-EOF\n\tx\n\tEOF', 'sh -c ls', 'LANG=C ls', 'git status']) {
      expect([c, await opaque(c)]).toEqual([c, false]);
    }
  });
});
