// undici's one home: the dispatcher used when a proxy or a client certificate is configured. Its own bundle
// (dist/agentd-net.js), loaded on the first request that needs it: with no proxy and no client certificate agentd
// never loads it (the model client keeps its node:http fast path, others the platform fetch).
//
// One Agent whose connector decides per origin: NO_PROXY and the proxy variables (net/config.ts proxyFor), then
// either a direct connection (undici's own connector) or a CONNECT tunnel (net/tunnel.ts, bounded, explained;
// undici's ProxyAgent loops forever on a proxy that drops CONNECT). Settings come from the edge, never from
// process.env here.
import { Agent, type Dispatcher, buildConnector, fetch as undiciFetch } from 'undici';
import { type NetConfig, proxyFor } from './config.js';
import { openTunnel } from './tunnel.js';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** How long a proxy may take to answer CONNECT (and the TLS handshake through it). */
const TUNNEL_TIMEOUT_MS = 30_000;

const DEFAULT_PORT: Record<string, number> = { 'http:': 80, 'https:': 443 };

export function createDispatcher(cfg: NetConfig): Dispatcher {
  const tls = cfg.clientTls ? { cert: cfg.clientTls.cert, key: cfg.clientTls.key, ...(cfg.clientTls.passphrase !== undefined ? { passphrase: cfg.clientTls.passphrase } : {}) } : undefined;
  const direct = buildConnector({ ...(tls ?? {}) });
  const proxy = cfg.proxy;
  if (!proxy) return new Agent({ connect: direct });
  return new Agent({
    connect: (opts, callback) => {
      const port = Number(opts.port) || DEFAULT_PORT[opts.protocol] || 0;
      const via = proxyFor(proxy, opts.protocol, opts.hostname, port);
      if (!via) {
        direct(opts, callback);
        return;
      }
      openTunnel(via, { protocol: opts.protocol, hostname: opts.hostname, port, servername: opts.servername }, tls, TUNNEL_TIMEOUT_MS).then(
        (socket) => callback(null, socket),
        (err: Error) => callback(err, null),
      );
    },
  });
}

/** A fetch through this dispatcher (undici's fetch: the platform fetch cannot take an outside dispatcher on every Node version). */
export function createDispatchingFetch(cfg: NetConfig): FetchLike {
  const dispatcher = createDispatcher(cfg);
  return (input, init) =>
    // eslint-disable-next-line no-restricted-syntax, @typescript-eslint/no-unnecessary-type-assertion -- undici's Response is the same class as the global fetch's, under its own type
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher }) as unknown as Promise<Response>;
}
