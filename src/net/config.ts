// How agentd reaches the network, resolved once from the environment at the edge (cli) and handed to every
// client that makes HTTP requests: the model client, WebFetch and remote MCP servers. The variables are the ones
// Claude Code 2.1.330 reads: HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either case; the lower-case one wins, as curl
// and undici), CLAUDE_CODE_CLIENT_CERT / _KEY / _KEY_PASSPHRASE for mutual TLS. NODE_EXTRA_CA_CERTS needs nothing
// here: Node reads it at process start and adds it to the default trust store every TLS connection uses (agentd
// never passes its own `ca`, which would replace that store).
import { readFileSync } from 'node:fs';
import { readNetEnv } from '../config/env.js';

export interface ProxySettings {
  /** Proxy for http: URLs ('' = none). */
  http: string;
  /** Proxy for https: URLs ('' = none; falls back to `http` as curl does). */
  https: string;
  /** NO_PROXY as given: comma/space separated hosts, .suffixes, host:port, or `*`. */
  noProxy: string;
}

export interface ClientTls {
  cert: Buffer;
  key: Buffer;
  passphrase: string | undefined;
}

export interface NetConfig {
  /** Undefined when no proxy variable is set: the fast path (node:http / the platform fetch) is used. */
  proxy: ProxySettings | undefined;
  /** A client certificate for mutual TLS, or undefined. */
  clientTls: ClientTls | undefined;
}

export const DIRECT: NetConfig = Object.freeze({ proxy: undefined, clientTls: undefined });

/** A network setting that cannot be honoured: refused at start-up, never ignored. */
export class NetConfigError extends Error {
  readonly code = 'network_config_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'NetConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function checkProxyUrl(name: string, value: string): void {
  if (!value) return;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new NetConfigError(`${name}=${value} is not a URL (expected e.g. http://proxy.example:3128).`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new NetConfigError(`${name}=${value}: agentd supports http:// and https:// proxies (CONNECT tunnelling), not ${u.protocol}`);
  }
}

function readPem(name: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new NetConfigError(`${name}=${path} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Resolves the network settings from the environment. Throws NetConfigError for settings it cannot honour. */
export function resolveNetConfig(env: Env): NetConfig {
  const n = readNetEnv(env);
  const http = n.httpProxy;
  const https = n.httpsProxy || http;
  checkProxyUrl('HTTP_PROXY', http);
  checkProxyUrl('HTTPS_PROXY', https);
  const proxy = http || https ? { http, https, noProxy: n.noProxy } : undefined;
  const certPath = n.clientCert;
  const keyPath = n.clientKey;
  if (Boolean(certPath) !== Boolean(keyPath)) {
    throw new NetConfigError('Mutual TLS needs both CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY (only one is set).');
  }
  const clientTls = certPath
    ? { cert: readPem('CLAUDE_CODE_CLIENT_CERT', certPath), key: readPem('CLAUDE_CODE_CLIENT_KEY', keyPath), passphrase: n.clientKeyPassphrase }
    : undefined;
  return { proxy, clientTls };
}

/**
 * The proxy for a request to `protocol//hostname:port`, or undefined to connect directly. NO_PROXY as curl reads
 * it: `*` bypasses everything; otherwise comma- or space-separated entries, each a host name or IP (matching
 * itself and, for names, its subdomains; a leading `.` or `*.` is ignored), optionally with `:port`.
 */
export function proxyFor(proxy: ProxySettings, protocol: string, hostname: string, port: number): string | undefined {
  const url = protocol === 'https:' ? proxy.https : proxy.http;
  if (!url) return undefined;
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  for (const raw of proxy.noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return undefined;
    const m = /^(?:\*\.|\.)?(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry);
    if (!m) continue;
    const name = (m[1] ?? '').replace(/^\[|\]$/g, '');
    if (m[2] !== undefined && Number(m[2]) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return undefined;
  }
  return url;
}
