// The daemon's loader. Runs agentd's CommonJS bundles through vm.Script with a V8 code cache stored beside each
// (<bundle>.cache): V8 then skips parsing and compiling what it compiled last time (Node 20 has no module compile
// cache of its own). A missing, stale (different source or V8) or corrupt cache is rejected by V8 and simply
// rebuilt: the bundle is compiled as usual and a fresh cache is written when the process exits. The bundles'
// own lazy requires of each other (./agentd-tools.js, ./agentd-sdk.js) go through the same loader.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

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

export function launch(file: string): void {
  load(file);
}
