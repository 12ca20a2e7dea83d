// The daemon's loader. Runs agentd's CommonJS bundles through vm.Script with a V8 code cache stored beside each
// (<bundle>.cache): V8 then skips parsing and compiling what it compiled last time (Node 20 has no module compile
// cache of its own). A missing, stale (different source or V8) or corrupt cache is rejected by V8 and simply
// rebuilt: the bundle is compiled as usual and a fresh cache is written when the process exits. The bundles'
// own lazy requires of each other (./agentd-tools.js, ./agentd-sdk.js) go through the same loader.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

/**
 * The built-in modules the daemon needs before it answers `initialize`, loaded before V8's flags change (see
 * tuneV8): Node compiles its built-ins from an embedded code cache that is only valid for the default flags.
 * (Plain require calls: a bundler drops side-effect-only imports of built-ins.)
 */
const EARLY_BUILTINS = ['node:console', 'node:net', 'node:os', 'node:stream', 'node:stream/promises', 'node:string_decoder'];

type Wrapped = (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;

const loaded = new Map<string, unknown>();

function cachedScript(file: string): Script {
  const source = readFileSync(file, 'utf8');
  const cacheFile = `${file}.cache`;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // The bundles contain no import(): the build turns them into require() calls, which this loader serves.
  const script = new Script(Module.wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
  if (!cachedData || script.cachedDataRejected === true) {
    // At exit, so the functions compiled while serving are in the cache too. Best effort: a read-only install
    // just runs without one.
    process.once('exit', () => {
      try {
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch {
        // not writable: fine
      }
    });
  }
  return script;
}

function requireFor(file: string): NodeJS.Require {
  const base = createRequire(file);
  const dir = dirname(file);
  const req = ((id: string) => {
    if (id.startsWith('./agentd-') && id.endsWith('.js')) return load(join(dir, id));
    return base(id);
  }) as NodeJS.Require;
  return Object.assign(req, { resolve: base.resolve, cache: base.cache, extensions: base.extensions, main: base.main });
}

/** Loads (once) and returns a bundle's module.exports. */
export function load(file: string): unknown {
  if (loaded.has(file)) return loaded.get(file);
  const mod = { exports: {} as unknown, id: file, filename: file, loaded: false };
  loaded.set(file, mod.exports);
  const fn = cachedScript(file).runInThisContext() as Wrapped;
  fn.call(mod.exports, mod.exports, requireFor(file), mod, file, dirname(file));
  mod.loaded = true;
  loaded.set(file, mod.exports);
  return mod.exports;
}

/**
 * Memory settings for a long-running daemon, applied at run time because V8 flags given on the command line
 * (even through bin/agentd) cost ~8 ms of start-up: with any flag set, Node's embedded code cache for its
 * built-in modules no longer matches and every built-in is compiled from source. Set here, only the built-ins
 * loaded later miss it: node:http/https and undici's Headers with the first model call, node:child_process
 * with the first Bash. That is a one-time cost, but not a small one: the first result through the loopback
 * bench went from ~82 to ~113 ms (BENCHMARKS.md, "First result"). agentd's own code caches are written and
 * read under these flags.
 *  - --semi-space-growth-factor=1: the young generation keeps its initial 1 MiB semi-spaces. By default V8
 *    doubles them up to 16 MiB as a session runs: +30 MiB of resident memory over a 200-turn session
 *    (BENCHMARKS.md, session-200-turns). The price is more young-generation GCs: ~20% of the synthetic
 *    200k-deltas stream benchmark, nothing a model's real stream rate comes near.
 *  - --liftoff-only: the shell parser (tree-sitter, WebAssembly) stays on V8's baseline compiler. Optimising
 *    its hot functions costs ~15 MiB of compiler memory that glibc keeps; parsing a command takes
 *    microseconds either way. (--no-wasm-tier-up has no effect once V8 is running; this does.)
 */
function tuneV8(): void {
  for (const id of EARLY_BUILTINS) require(id);
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--liftoff-only');
  // For memory.ts (collection at turn ends): only contexts created from now on get `gc`, not agentd's own.
  setFlagsFromString('--expose-gc');
}

export function launch(file: string): void {
  tuneV8();
  // bin/agentd sets GLIBC_TUNABLES for this process only (glibc has read it by now): tools, hooks and MCP
  // servers get the environment the host gave agentd.
  if (process.env['AGENTD_SET_GLIBC_TUNABLES'] === '1') {
    delete process.env['GLIBC_TUNABLES'];
    delete process.env['AGENTD_SET_GLIBC_TUNABLES'];
  }
  load(file);
}
