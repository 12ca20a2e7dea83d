// The grammar loads lazily, once, and is shared; nothing is parsed before the first analysis asks for it.
import { describe, expect, it } from 'vitest';
import { analyzeCommand, analyzeCommandSync } from '../../../src/tools/shell/index.js';
import { loadShellParser, loadedShellParser } from '../../../src/tools/shell/parser.js';

describe('shell parser loading', () => {
  it('is not loaded until first use, then loaded once and shared', async () => {
    expect(loadedShellParser()).toBeUndefined();
    expect(analyzeCommandSync('ls')).toBeUndefined();
    const [a, b] = await Promise.all([analyzeCommand('ls'), analyzeCommand('pwd')]);
    expect([a.ok, b.ok]).toEqual([true, true]);
    const parser = loadedShellParser();
    expect(parser).toBeDefined();
    expect(await loadShellParser()).toBe(parser);
    expect(analyzeCommandSync('cat x')?.segments.map((s) => s.argv)).toEqual([['cat', 'x']]);
  });
});
