// CONNECT tunnelling through an HTTP(S) proxy, with a deadline and explained failures. agentd does this itself
// rather than with undici's ProxyAgent: when a proxy drops the connection in answer to CONNECT, ProxyAgent (7.x)
// re-sends the CONNECT in a tight loop, forever (measured: ~250 attempts a second); a proxy that misbehaves must
// end the request with an error, not spin.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type Socket, isIP } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';

export class ProxyTunnelError extends Error {
  readonly code = 'proxy_tunnel_failed';
  constructor(message: string) {
    super(message);
    this.name = 'ProxyTunnelError';
  }
}

export interface TunnelTarget {
  protocol: string;
  hostname: string;
  port: number;
  servername?: string | null | undefined;
}

/** Where the proxy is, without its credentials (for messages). */
function proxyLabel(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}

/**
 * Opens a tunnel to `target` through `proxyUrl` and, for an https: target, TLS over it (with the client
 * certificate when given). Rejects with a ProxyTunnelError that says what the proxy did.
 */
export function openTunnel(proxyUrl: string, target: TunnelTarget, tls: Pick<ConnectionOptions, 'cert' | 'key' | 'passphrase'> | undefined, timeoutMs: number): Promise<Socket> {
  const proxy = new URL(proxyUrl);
  const hostPort = `${isIP(target.hostname) === 6 ? `[${target.hostname}]` : target.hostname}:${target.port}`;
  const where = `${proxyLabel(proxy)} (CONNECT ${hostPort})`;
  const headers: Record<string, string> = { host: hostPort };
  if (proxy.username || proxy.password) {
    headers['proxy-authorization'] = `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
  }
  return new Promise<Socket>((resolve, reject) => {
    let done = false;
    const fail = (message: string): void => {
      if (done) return;
      done = true;
      reject(new ProxyTunnelError(message));
    };
    const req = (proxy.protocol === 'https:' ? httpsRequest : httpRequest)({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: hostPort,
      headers,
      agent: false,
      timeout: timeoutMs,
    });
    req.once('connect', (res, socket: Socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        fail(`the proxy ${where} refused the tunnel: ${res.statusCode ?? '?'} ${res.statusMessage ?? ''}`.trim());
        return;
      }
      req.setTimeout(0);
      // As undici's own connector does: small request bodies and the first SSE bytes must not wait for Nagle.
      socket.setNoDelay(true);
      if (target.protocol !== 'https:') {
        done = true;
        resolve(socket);
        return;
      }
      const servername = target.servername || (isIP(target.hostname) ? undefined : target.hostname);
      const secure = tlsConnect({ socket, host: target.hostname, ...(servername ? { servername } : {}), ALPNProtocols: ['http/1.1'], ...(tls ?? {}) });
      secure.once('secureConnect', () => {
        if (done) return;
        done = true;
        resolve(secure);
      });
      secure.once('error', (e: Error) => {
        secure.destroy();
        fail(`TLS through the proxy ${where} failed: ${e.message}`);
      });
    });
    req.once('timeout', () => {
      req.destroy();
      fail(`the proxy ${where} did not answer within ${timeoutMs} ms`);
    });
    req.once('error', (e: NodeJS.ErrnoException) => {
      fail(
        e.code === 'ECONNREFUSED'
          ? `the proxy ${proxyLabel(proxy)} refused the connection (ECONNREFUSED): is HTTPS_PROXY / HTTP_PROXY right?`
          : `the proxy ${where} closed the connection without answering (${e.code ?? e.message})`,
      );
    });
    req.end();
  });
}
