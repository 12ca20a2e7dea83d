// The bash grammar, loaded once on first use and shared by every analysis. tree-sitter-bash runs as WASM
// (web-tree-sitter), so no native build is needed. sh-syntax was evaluated first: its JSON AST keeps only
// positions for a statement's command (no node kinds, no words), so it cannot tell `a && b` from `a | b`.
//
// The WASM files are read by path (resolved from this module) and handed over as bytes, which works the same
// from the TypeScript sources and from the esbuild bundle, where web-tree-sitter's own URL-relative lookup
// would point next to the bundle in dist/.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Node as SyntaxNode, Parser } from 'web-tree-sitter';

export type { Parser, SyntaxNode };

let loading: Promise<Parser> | undefined;

async function load(): Promise<Parser> {
  const require = createRequire(import.meta.url);
  const ts = await import('web-tree-sitter');
  const [core, grammar] = await Promise.all([
    readFile(require.resolve('web-tree-sitter/web-tree-sitter.wasm')),
    readFile(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')),
  ]);
  await ts.Parser.init({ wasmBinary: core });
  const bash = await ts.Language.load(grammar);
  const parser = new ts.Parser();
  parser.setLanguage(bash);
  return parser;
}

let loaded: Parser | undefined;

/** The shared parser, loading it on first use. */
export function loadShellParser(): Promise<Parser> {
  loading ??= load().then(
    (p) => {
      loaded = p;
      return p;
    },
    (e: unknown) => {
      // Let a later call try again (a transient read error must not disable analysis for the session).
      loading = undefined;
      throw e;
    },
  );
  return loading;
}

/** The shared parser if it has finished loading (for callers that cannot wait). */
export function loadedShellParser(): Parser | undefined {
  return loaded;
}

/** Loads the grammar now (optional: analysis loads it on first use). */
export async function warmShellParser(): Promise<void> {
  await loadShellParser();
}

/**
 * Parses `source` and hands the root node to `visit`. The tree lives in WASM memory and is freed as soon as
 * `visit` returns, so `visit` must copy out what it needs.
 */
export function withSyntaxTree<T>(parser: Parser, source: string, visit: (root: SyntaxNode) => T): T {
  const tree = parser.parse(source);
  if (!tree) throw new Error('the shell parser returned no tree');
  try {
    return visit(tree.rootNode);
  } finally {
    tree.delete();
  }
}
