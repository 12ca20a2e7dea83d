// The network layer in-process: NO_PROXY matching, settings refused with a reason, model-id mapping, and
// netFetch (the one fetch for WebFetch and remote MCP servers) through a loopback CONNECT proxy.
import { afterEach, describe, expect, it } from 'vitest';
import { NetConfigError, type ProxySettings, proxyFor, resolveNetConfig } from '../../../src/net/config.js';
import { configureNetwork, createNetFetch, netFetch } from '../../../src/net/fetch.js';
import { bedrockRegionPrefix, providerModelId } from '../../../src/model/providers/model-ids.js';
import { type ConnectProxy, startConnectProxy } from '../../support/connect-proxy.js';
import { type LoopbackServer, startLoopbackServer } from '../../support/loopback-server.js';

const P: ProxySettings = { http: 'http://proxy:3128', https: 'http://sproxy:3128', noProxy: '' };

describe('proxyFor (NO_PROXY as curl reads it)', () => {
  it.each([
    ['', 'https:', 'api.anthropic.com', 443, 'http://sproxy:3128'],
    ['', 'http:', 'api.anthropic.com', 80, 'http://proxy:3128'],
    ['*', 'https:', 'api.anthropic.com', 443, undefined],
    ['anthropic.com', 'https:', 'api.anthropic.com', 443, undefined],
    ['.anthropic.com', 'https:', 'api.anthropic.com', 443, undefined],
    ['*.anthropic.com', 'https:', 'anthropic.com', 443, undefined],
    ['thropic.com', 'https:', 'api.anthropic.com', 443, 'http://sproxy:3128'],
    ['localhost, 127.0.0.1', 'http:', '127.0.0.1', 8080, undefined],
    ['127.0.0.1:9000', 'http:', '127.0.0.1', 8080, 'http://proxy:3128'],
    ['127.0.0.1:8080', 'http:', '127.0.0.1', 8080, undefined],
    ['[::1]', 'http:', '[::1]', 80, undefined],
    ['API.Anthropic.COM.', 'https:', 'api.anthropic.com', 443, 'http://sproxy:3128'],
  ])('NO_PROXY=%j %s//%s:%d → %s', (noProxy, protocol, host, port, expected) => {
    expect(proxyFor({ ...P, noProxy }, protocol, host, port)).toBe(expected);
  });
});

describe('resolveNetConfig', () => {
  it('reads both cases (lower-case wins), HTTPS falls back to HTTP_PROXY, nothing set is the fast path', () => {
    expect(resolveNetConfig({})).toEqual({ proxy: undefined, clientTls: undefined });
    expect(resolveNetConfig({ HTTP_PROXY: 'http://a:1', https_proxy: 'http://b:2', HTTPS_PROXY: 'http://c:3', no_proxy: 'x' })).toEqual({
      proxy: { http: 'http://a:1', https: 'http://b:2', noProxy: 'x' },
      clientTls: undefined,
    });
    expect(resolveNetConfig({ HTTP_PROXY: 'http://a:1' }).proxy).toEqual({ http: 'http://a:1', https: 'http://a:1', noProxy: '' });
  });

  it('refuses what it cannot honour, with the reason', () => {
    expect(() => resolveNetConfig({ HTTPS_PROXY: 'socks5://h:1' })).toThrow(new NetConfigError('HTTPS_PROXY=socks5://h:1: agentd supports http:// and https:// proxies (CONNECT tunnelling), not socks5:'));
    expect(() => resolveNetConfig({ HTTP_PROXY: 'not a url' })).toThrow(/HTTP_PROXY=not a url is not a URL/);
    expect(() => resolveNetConfig({ CLAUDE_CODE_CLIENT_CERT: '/x.pem' })).toThrow(/needs both CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY/);
    expect(() => resolveNetConfig({ CLAUDE_CODE_CLIENT_CERT: '/nonexistent/c.pem', CLAUDE_CODE_CLIENT_KEY: '/nonexistent/k.pem' })).toThrow(/CLAUDE_CODE_CLIENT_CERT=\/nonexistent\/c.pem cannot be read/);
  });
});

describe('model ids per provider (Claude Code 2.1.330\'s catalog)', () => {
  it.each([
    ['claude-sonnet-4-5', 'bedrock', 'us', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
    ['claude-sonnet-4-5-20250929', 'bedrock', 'eu', 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0'],
    // An id with a region prefix is sent as typed (Claude Code 2.1.330, measured).
    ['us.anthropic.claude-opus-4-6-v1', 'bedrock', 'apac', 'us.anthropic.claude-opus-4-6-v1'],
    ['anthropic.claude-opus-4-6-v1', 'bedrock', 'apac', 'apac.anthropic.claude-opus-4-6-v1'],
    ['arn:aws:bedrock:us-east-1:123:application-inference-profile/abc', 'bedrock', 'us', 'arn:aws:bedrock:us-east-1:123:application-inference-profile/abc'],
    ['claude-haiku-4-5', 'vertex', 'us', 'claude-haiku-4-5@20251001'],
    ['claude-3-5-sonnet-20241022', 'vertex', 'us', 'claude-3-5-sonnet-v2@20241022'],
    ['claude-opus-4-1-20250805', 'foundry', 'us', 'claude-opus-4-1'],
    ['my-deployment', 'foundry', 'us', 'my-deployment'],
  ] as const)('%s on %s (%s) → %s', (model, provider, prefix, expected) => {
    expect(providerModelId(model, provider, prefix)).toBe(expected);
  });

  it('region prefixes', () => {
    expect(['us-east-1', 'eu-central-1', 'ap-northeast-1', 'us-gov-west-1', 'ca-central-1', undefined].map((r) => bedrockRegionPrefix(r, undefined))).toEqual(['us', 'eu', 'apac', 'us-gov', 'global', 'global']);
    expect([bedrockRegionPrefix('eu-west-1', 'global'), bedrockRegionPrefix('us-gov-east-1', 'global')]).toEqual(['global', 'us-gov']);
  });
});

describe('netFetch (WebFetch and remote MCP servers)', () => {
  let server: LoopbackServer | undefined;
  let proxy: ConnectProxy | undefined;
  afterEach(async () => {
    configureNetwork({ proxy: undefined, clientTls: undefined });
    await server?.close();
    await proxy?.close();
  });

  it('goes through the configured proxy with CONNECT, honours NO_PROXY, and is the platform fetch when nothing is set', async () => {
    server = await startLoopbackServer({ rules: [] });
    proxy = await startConnectProxy();
    configureNetwork(resolveNetConfig({ HTTP_PROXY: proxy.url }));
    expect((await netFetch(`${server.url}/page`)).status).toBe(200);
    expect(proxy.connects).toEqual([new URL(server.url).host]);
    configureNetwork(resolveNetConfig({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }));
    expect((await netFetch(`${server.url}/page`)).status).toBe(200);
    configureNetwork(resolveNetConfig({}));
    expect((await netFetch(`${server.url}/page`)).status).toBe(200);
    expect(proxy.connects).toHaveLength(1);
  });

  it('a proxy that drops CONNECT fails the fetch at once with the reason (no retry loop)', async () => {
    server = await startLoopbackServer({ rules: [] });
    proxy = await startConnectProxy('drop');
    const f = createNetFetch(resolveNetConfig({ HTTP_PROXY: proxy.url }));
    const err = await f(`${server.url}/page`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TypeError);
    expect(String((err as Error & { cause?: Error }).cause?.message)).toMatch(/^the proxy http:\/\/127\.0\.0\.1:\d+ \(CONNECT 127\.0\.0\.1:\d+\) closed the connection without answering \(ECONNRESET\)$/);
    expect(proxy.connects).toHaveLength(1);
  });
});
