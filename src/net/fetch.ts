// The one fetch for agentd's outbound HTTP that is not the model client (WebFetch, remote MCP servers):
// `netFetch(url, init)` honours the proxy and client-certificate settings resolved at start-up
// (`configureNetwork`), and is the platform fetch, untouched, when none is set.
//
// The settings live under a global symbol rather than in a module variable on purpose: this file is bundled into
// more than one of agentd's bundles (the daemon, the tools bundle, the MCP bundle), each with its own copy of
// module state; the process has one network configuration.
import { DIRECT, type NetConfig } from './config.js';
import type { FetchLike } from './undici.js';

export type { FetchLike };

const KEY = Symbol.for('agentd.net.config');
interface Slot {
  cfg: NetConfig;
  fetch: Promise<FetchLike> | undefined;
}

function slot(): Slot {
  const g = globalThis as { [KEY]?: Slot };
  g[KEY] ??= { cfg: DIRECT, fetch: undefined };
  return g[KEY];
}

/** Installs the process's network settings (once, at start-up, by the composition root). */
export function configureNetwork(cfg: NetConfig): void {
  const s = slot();
  s.cfg = cfg;
  s.fetch = undefined;
}

export function networkConfig(): NetConfig {
  return slot().cfg;
}

export function needsDispatcher(cfg: NetConfig): boolean {
  return cfg.proxy !== undefined || cfg.clientTls !== undefined;
}

/** A fetch for these settings: the platform fetch when they are the defaults, else undici (loaded lazily). */
export function createNetFetch(cfg: NetConfig): FetchLike {
  if (!needsDispatcher(cfg)) return (input, init) => fetch(input, init);
  let ready: Promise<FetchLike> | undefined;
  return async (input, init) => {
    ready ??= import('./undici.js').then((m) => m.createDispatchingFetch(cfg));
    return (await ready)(input, init);
  };
}

/** fetch with the process's network settings (proxy, NO_PROXY, client certificate). Use it for every outbound request. */
export function netFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const s = slot();
  if (!needsDispatcher(s.cfg)) return fetch(input, init);
  const cfg = s.cfg;
  s.fetch ??= import('./undici.js').then((m) => m.createDispatchingFetch(cfg));
  return s.fetch.then((f) => f(input, init));
}
