// The network settings through the official TypeScript SDK (issue 14): HTTPS_PROXY / HTTP_PROXY tunnel with
// CONNECT through a loopback proxy, NO_PROXY bypasses it, NODE_EXTRA_CA_CERTS trusts a test CA for a self-signed
// loopback HTTPS endpoint, CLAUDE_CODE_CLIENT_CERT / _KEY / _KEY_PASSPHRASE present a client certificate; a proxy
// that refuses or drops the tunnel ends the turn with a bounded, typed, explained connection error.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { type ConnectProxy, startConnectProxy } from '../support/connect-proxy.js';
import { AGENTD, baseEnv, tempDir } from '../support/daemon.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';
import { collect, collectSettled } from '../support/sdk-run.js';
import { type TestPki, makeTestPki } from '../support/tls.js';

const HELLO: Scenario = { rules: [{ reply: { content: [{ type: 'text', text: 'through the wire' }] } }] };
const KEY = 'sk-test-network-key-00000';

let pki: TestPki;
let server: LoopbackServer | undefined;
let proxy: ConnectProxy | undefined;
beforeAll(() => {
  pki = makeTestPki();
});
afterEach(async () => {
  await server?.close();
  await proxy?.close();
  server = undefined;
  proxy = undefined;
});
afterAll(() => undefined);

async function turn(env: Record<string, string>) {
  // A turn that ends with an error result makes the CLI exit 1 (as Claude Code does) and the SDK throw: kept.
  const { messages: msgs } = await collectSettled(
    query({ prompt: 'hi', options: { pathToClaudeCodeExecutable: AGENTD, cwd: tempDir(), env: baseEnv({ ANTHROPIC_API_KEY: KEY, AGENTD_RETRY_BASE_DELAY_MS: '10', ...env }) } }),
  );
  return msgs.filter((m) => m.type === 'result').at(-1) as Record<string, unknown> | undefined;
}

describe('network settings through the official SDK', () => {
  it('HTTPS_PROXY: the model call tunnels through the proxy with CONNECT to an HTTPS endpoint trusted via NODE_EXTRA_CA_CERTS', async () => {
    server = await startLoopbackServer(HELLO, {}, { tls: pki.server });
    proxy = await startConnectProxy();
    const result = await turn({ ANTHROPIC_BASE_URL: server.url, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: pki.caPath });
    expect(result).toMatchObject({ subtype: 'success', result: 'through the wire' });
    expect(proxy.connects).toEqual([new URL(server.url).host]);
    expect(proxy.plain).toEqual([]);
    expect(server.requests[0]?.headers['x-api-key']).toBe(KEY);
  });

  it('HTTP_PROXY: an http endpoint is reached through a CONNECT tunnel too (lower-case variable honoured)', async () => {
    server = await startLoopbackServer(HELLO);
    proxy = await startConnectProxy();
    const result = await turn({ ANTHROPIC_BASE_URL: server.url, http_proxy: proxy.url });
    expect(result).toMatchObject({ subtype: 'success', result: 'through the wire' });
    expect(proxy.connects).toEqual([new URL(server.url).host]);
  });

  it('NO_PROXY: a listed host bypasses the proxy', async () => {
    server = await startLoopbackServer(HELLO, {}, { tls: pki.server });
    proxy = await startConnectProxy();
    const result = await turn({ ANTHROPIC_BASE_URL: server.url, HTTPS_PROXY: proxy.url, NO_PROXY: 'example.internal,127.0.0.1', NODE_EXTRA_CA_CERTS: pki.caPath });
    expect(result).toMatchObject({ subtype: 'success', result: 'through the wire' });
    expect(proxy.connects).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('without the CA the self-signed endpoint is refused: a typed connection error that names the cause', async () => {
    server = await startLoopbackServer(HELLO, {}, { tls: pki.server });
    const result = await turn({ ANTHROPIC_BASE_URL: server.url, AGENTD_MAX_RETRIES: '0' });
    expect(result).toMatchObject({ is_error: true, agentd_error: { category: 'connection' } });
    expect(String(result?.['result'])).toMatch(/^API Error: Connection error .*(self-signed|unable to verify|UNABLE_TO_VERIFY|SELF_SIGNED)/i);
    expect(server.requests).toHaveLength(0);
  });

  it('CLAUDE_CODE_CLIENT_CERT / _KEY / _KEY_PASSPHRASE: the client certificate is presented (mutual TLS), direct and through the proxy', async () => {
    server = await startLoopbackServer(HELLO, {}, { tls: { ...pki.server, clientCa: pki.ca } });
    const mtls = { CLAUDE_CODE_CLIENT_CERT: pki.client.certPath, CLAUDE_CODE_CLIENT_KEY: pki.client.keyPath, CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: pki.client.passphrase, NODE_EXTRA_CA_CERTS: pki.caPath };
    expect(await turn({ ANTHROPIC_BASE_URL: server.url, ...mtls })).toMatchObject({ subtype: 'success', result: 'through the wire' });
    proxy = await startConnectProxy();
    expect(await turn({ ANTHROPIC_BASE_URL: server.url, HTTPS_PROXY: proxy.url, ...mtls })).toMatchObject({ subtype: 'success', result: 'through the wire' });
    expect(proxy.connects).toHaveLength(1);
    // Without the certificate the server refuses the handshake.
    const refused = await turn({ ANTHROPIC_BASE_URL: server.url, NODE_EXTRA_CA_CERTS: pki.caPath, AGENTD_MAX_RETRIES: '0' });
    expect(refused).toMatchObject({ is_error: true });
    expect(server.requests).toHaveLength(2);
  });

  it.each(['refuse', 'drop'] as const)('a proxy that %ss CONNECT: retried, then a bounded, typed connection error naming the proxy failure', async (mode) => {
    server = await startLoopbackServer(HELLO);
    proxy = await startConnectProxy(mode);
    const started = Date.now();
    const result = await turn({ ANTHROPIC_BASE_URL: server.url, HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, AGENTD_MAX_RETRIES: '1' });
    expect(result).toMatchObject({ is_error: true });
    expect(String(result?.['result'])).toMatch(
      mode === 'refuse'
        ? /^API Error: Connection error \(http:\/\/127\.0\.0\.1:\d+\): the proxy http:\/\/127\.0\.0\.1:\d+ \(CONNECT 127\.0\.0\.1:\d+\) refused the tunnel: 403 Forbidden/
        : /^API Error: Connection error \(http:\/\/127\.0\.0\.1:\d+\): the proxy http:\/\/127\.0\.0\.1:\d+ \(CONNECT 127\.0\.0\.1:\d+\) closed the connection without answering \(ECONNRESET\)/,
    );
    expect(proxy.connects).toHaveLength(2);
    expect(server.requests).toHaveLength(0);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('a proxy variable that is not an http(s) URL fails at start-up with the reason', async () => {
    const q = query({ prompt: 'hi', options: { pathToClaudeCodeExecutable: AGENTD, cwd: tempDir(), env: baseEnv({ ANTHROPIC_API_KEY: KEY, HTTPS_PROXY: 'socks5://127.0.0.1:1080' }) } });
    await expect(collect(q)).rejects.toThrow(/HTTPS_PROXY=socks5:\/\/127\.0\.0\.1:1080: agentd supports http:\/\/ and https:\/\/ proxies/);
  });
});
