// undici's one home: the dispatcher used when a proxy or a client certificate is configured. Its own bundle
// (dist/agentd-net.js), loaded on the first request that needs it: with no proxy and no client certificate agentd
// never loads it (the model client keeps its node:http fast path, others the platform fetch).
//
// EnvHttpProxyAgent is given every value explicitly (never left to read process.env itself), so the settings are
// the ones resolved at the edge. Its ProxyAgents tunnel with CONNECT for http: and https: targets alike.
import { Agent, EnvHttpProxyAgent, type Dispatcher, fetch as undiciFetch } from 'undici';
import type { NetConfig } from './config.js';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function createDispatcher(cfg: NetConfig): Dispatcher {
  const tls = cfg.clientTls ? { cert: cfg.clientTls.cert, key: cfg.clientTls.key, ...(cfg.clientTls.passphrase !== undefined ? { passphrase: cfg.clientTls.passphrase } : {}) } : undefined;
  if (!cfg.proxy) return new Agent(tls ? { connect: tls } : {});
  return new EnvHttpProxyAgent({
    httpProxy: cfg.proxy.http,
    httpsProxy: cfg.proxy.https,
    noProxy: cfg.proxy.noProxy,
    ...(tls ? { connect: tls, requestTls: tls } : {}),
  });
}

/** A fetch through this dispatcher (undici's fetch: the platform fetch cannot take an outside dispatcher on every Node version). */
export function createDispatchingFetch(cfg: NetConfig): FetchLike {
  const dispatcher = createDispatcher(cfg);
  return (input, init) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher }) as unknown as Promise<Response>;
}
