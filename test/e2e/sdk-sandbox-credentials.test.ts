// `sandbox.credentials` and `sandbox.network.tlsTerminate` through the official SDK (issue 21): from the SDK's
// `sandbox` option (a --settings layer the host wrote) a masked variable and file show sandboxed commands only a
// sentinel, which the proxy, terminating TLS, turns back into the real value on the way to an allowed HTTPS host;
// denied ones are unreadable / unset. From a repository's .claude/settings.json the same keys tighten only: masks
// become denies, tlsTerminate is not honoured, and the session runs. Needs bwrap, socat, curl and openssl (the
// test's own HTTPS server certificate).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/daemon.js';
import { collect, query, scriptedRun, toolResults } from '../support/sdk-run.js';

const SECRET = 'real-secret-0123456789abcdef';
const FILE_SECRET = 'file-secret-fedcba9876543210';

let dir = '';
let caPath = '';
const seen: string[] = [];
let server: ReturnType<typeof createServer> | undefined;
let port = 0;

beforeAll(async () => {
  dir = tempDir('agentd-creds-');
  caPath = join(dir, 'localhost.pem');
  const keyPath = join(dir, 'localhost.key');
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', caPath, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
  } catch (e) {
    throw new Error(`this test makes its HTTPS server's certificate with openssl: install it (apt-get install openssl): ${e instanceof Error ? e.message : String(e)}`);
  }
  server = createServer({ key: readFileSync(keyPath), cert: readFileSync(caPath) }, (req, res) => {
    seen.push(`${req.headers.authorization ?? 'none'} | ${req.headers['x-file'] ?? 'none'}`);
    res.end('hello over TLS');
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command } });
const bashTurn = (calls: Array<ReturnType<typeof bash>>, env: Record<string, string>) =>
  scriptedRun(
    {
      rules: [
        { when: { hasToolResults: false }, reply: { content: calls } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'checked' }] } },
      ],
    },
    { env },
  );

/** A secret file, a masked file and the Bash calls that show what a sandboxed command sees of them. */
function probe(files: { denied: string; masked: string }) {
  return [
    bash('env', 'echo "mask=${MY_SECRET:0:11} deny=${DENIED_VAR-unset} settings-env=${SETTINGS_ONLY-unset}"'),
    bash('files', `cat ${files.denied} >/dev/null 2>&1; echo "denied rc=$?"; echo "masked=$(cut -c1-11 ${files.masked} 2>/dev/null)"`),
    bash('ca', 'if [ -n "${SSL_CERT_FILE-}" ] && grep -q "BEGIN CERTIFICATE" "$SSL_CERT_FILE"; then echo "ca=trusted"; else echo "ca=none"; fi'),
  ];
}

function secretFiles(): { denied: string; masked: string } {
  const d = tempDir('agentd-creds-files-');
  writeFileSync(join(d, 'denied.txt'), `${FILE_SECRET}\n`);
  writeFileSync(join(d, 'token'), FILE_SECRET);
  return { denied: join(d, 'denied.txt'), masked: join(d, 'token') };
}

describe('sandbox.credentials and sandbox.network.tlsTerminate through the SDK', () => {
  it('from the sandbox option: masked values are sentinels inside and real at the allowed HTTPS host; denied ones are gone', async () => {
    const files = secretFiles();
    seen.length = 0;
    const run = bashTurn(
      [
        ...probe(files),
        // --noproxy '': the sandbox's NO_PROXY names localhost, which this test's server is.
        bash('https', `curl --noproxy '' -sS https://localhost:${port}/ -H "Authorization: Bearer $MY_SECRET" -H "X-File: $(cat ${files.masked})"; echo " rc=$?"`),
      ],
      // The proxy (in agentd) checks the upstream's certificate as Node does: this server's is trusted that way.
      { MY_SECRET: SECRET, DENIED_VAR: 'denied-value', NODE_EXTRA_CA_CERTS: caPath },
    );
    // A variable only the settings' `env` sets (agentd's own environment lacks it): withheld, not passed in unmasked.
    mkdirSync(join(run.home, '.claude'), { recursive: true });
    writeFileSync(join(run.home, '.claude', 'settings.json'), JSON.stringify({ env: { SETTINGS_ONLY: 'settings-secret' } }));
    const sandbox = {
      enabled: true,
      autoAllowBashIfSandboxed: true,
      network: { allowedDomains: ['localhost'], tlsTerminate: {} },
      credentials: {
        envVars: [
          { name: 'MY_SECRET', mode: 'mask' },
          { name: 'DENIED_VAR', mode: 'deny' },
          { name: 'SETTINGS_ONLY', mode: 'mask' },
        ],
        files: [
          { path: files.denied, mode: 'deny' },
          { path: files.masked, mode: 'mask' },
        ],
      },
    };
    // The host allows every call: the curl's header words are only known when it runs, which autoAllow does not cover.
    const allow = async (_tool: string, input: Record<string, unknown>) => ({ behavior: 'allow' as const, updatedInput: input });
    const msgs = await collect(query({ prompt: 'go', options: run.options({ sandbox: sandbox as never, settingSources: ['user'], permissionMode: 'default', canUseTool: allow }) }));
    expect(toolResults(msgs)).toEqual([
      ['env', false, 'mask=fake_value_ deny=unset settings-env=unset'],
      ['files', false, 'denied rc=1\nmasked=fake_value_'],
      ['ca', false, 'ca=trusted'],
      ['https', false, 'hello over TLS rc=0'],
    ]);
    // What reached the host: the real values, put back by the proxy.
    expect(seen).toEqual([`Bearer ${SECRET} | ${FILE_SECRET}`]);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'checked' });
  });

  it("from a repository's settings file: masks become denies, tlsTerminate is not honoured, and the session runs", async () => {
    const files = secretFiles();
    const run = bashTurn(probe(files), { MY_SECRET: SECRET, DENIED_VAR: 'denied-value' });
    mkdirSync(join(run.cwd, '.claude'), { recursive: true });
    writeFileSync(
      join(run.cwd, '.claude', 'settings.json'),
      JSON.stringify({
        sandbox: {
          enabled: true,
          network: { tlsTerminate: {} },
          credentials: {
            envVars: [{ name: 'MY_SECRET', mode: 'mask' }, { name: 'DENIED_VAR', mode: 'deny' }, 'not an entry'],
            files: [
              { path: files.denied, mode: 'deny' },
              { path: files.masked, mode: 'mask' },
            ],
            allowPlaintextInject: true,
          },
        },
      }),
    );
    let stderr = '';
    const msgs = await collect(
      query({ prompt: 'go', options: run.options({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true }, settingSources: ['project'], permissionMode: 'default', stderr: (s) => (stderr += s), spawnClaudeCodeProcess: undefined }) }),
    );
    expect(toolResults(msgs)).toEqual([
      ['env', false, 'mask= deny=unset settings-env=unset'],
      ['files', false, 'denied rc=1\nmasked='],
      ['ca', false, 'ca=none'],
    ]);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'checked' });
    // Said once on stderr: the wrong entry (with its file) and what was not honoured.
    expect(stderr).toContain('sandbox.credentials.envVars[2]: expected an object with a name (string) and a mode');
    expect(stderr).toContain(join(run.cwd, '.claude', 'settings.json'));
    expect(stderr).toContain(`sandbox.credentials.envVars[0] (MY_SECRET): mode \\"mask\\" from a repository's file is applied as \\"deny\\"`);
  });
});
