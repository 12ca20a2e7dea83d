// MEASUREMENT (not part of npm test): what Claude Code 2.1.330 does with `sandbox.credentials` and
// `sandbox.network.tlsTerminate` on Linux (bubblewrap + socat here, its embedded ripgrep), from the SDK's
// `sandbox` option (a --settings layer) and from a project's .claude/settings.json, and with values of the wrong
// type. Drives the reference binary through the TS SDK against the loopback model; prints what each sandboxed
// Bash command saw. Run: npx vitest run -c test/measure/vitest.measure.config.ts test/measure/sandbox-credentials.measure.ts
//
// Found (2026-11-29, Claude Code 2.1.330, Linux, bwrap + socat, no system rg):
//  - SDK option, deny: the variable is unset, the file "Permission denied". Mask: both read `fake_value_<uuid>`,
//    and without tlsTerminate stderr says "⚠ sandbox.credentials mask entries (…) are configured but TLS
//    termination is unavailable — … Enable sandbox.network.tlsTerminate, or remove the mask entries".
//  - Project file, deny: honoured as from the option. Mask: dropped; the real value and file are readable.
//  - tlsTerminate {} from the option: SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, CURL_CA_BUNDLE, REQUESTS_CA_BUNDLE and
//    GIT_SSL_CAINFO point at the runtime's trust bundle; from the project file: not honoured (none set).
//  - A wrong type in the option (tlsTerminate: true, credentials: "x", a files entry without mode): start-up
//    refused, "the settings passed with --settings … failed validation, so none of them apply (sandbox.…: …)".
//  - A wrong type in the project file (credentials: "x"): the whole project `sandbox` block is dropped silently,
//    `enabled` included (commands ran unsandboxed).
//  - tlsTerminate with a CA path that does not exist: every Bash call fails "Sandbox is required but failed to
//    initialize: tlsTerminate.caCertPath: cannot read … (ENOENT)".
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { startLoopbackServer } from '../support/loopback-server.js';
import { ROOT, tempDir } from '../support/daemon.js';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');

interface Variant {
  name: string;
  /** The SDK's `sandbox` option (on top of enabled/autoAllow). */
  option?: Record<string, unknown>;
  /** A project .claude/settings.json `sandbox` block. */
  project?: Record<string, unknown>;
}

const SECRET = 'real-secret-value-1234567890';
const creds = (secretFile: string, mode: 'deny' | 'mask') => ({ files: [{ path: secretFile, mode }], envVars: [{ name: 'MY_SECRET', mode }] });

const variants = (secretFile: string): Variant[] => [
  { name: 'A control (no credentials)', option: {} },
  { name: 'B option credentials deny', option: { credentials: creds(secretFile, 'deny') } },
  { name: 'C option credentials mask', option: { credentials: creds(secretFile, 'mask'), network: { allowedDomains: ['localhost'] } } },
  { name: 'D project credentials deny', project: { credentials: creds(secretFile, 'deny') } },
  { name: 'E project credentials mask', project: { credentials: creds(secretFile, 'mask') } },
  { name: 'F option tlsTerminate {}', option: { network: { allowedDomains: ['localhost'], tlsTerminate: {} } } },
  { name: 'G project tlsTerminate {}', project: { network: { allowedDomains: ['localhost'], tlsTerminate: {} } } },
  { name: 'H option tlsTerminate wrong type (true)', option: { network: { tlsTerminate: true } } },
  { name: 'I option credentials wrong type ("x")', option: { credentials: 'x' } },
  { name: 'J option credentials.files entry without mode', option: { credentials: { files: [{ path: secretFile }] } } },
  { name: 'K project credentials wrong type', project: { credentials: 'x' } },
  { name: 'L option tlsTerminate bad CA path', option: { network: { allowedDomains: ['localhost'], tlsTerminate: { caCertPath: '/nonexistent/ca.pem', caKeyPath: '/nonexistent/ca.key' } } } },
];

const only = process.env['ONLY'];
for (const name of variants('x').map((v) => v.name).filter((n) => !only || only.split(',').some((o) => n.startsWith(o)))) {
  it(name, async () => {
    const cwd = realpathSync(tempDir('cc-creds-'));
    const home = tempDir('cc-home-');
    const secretDir = realpathSync(tempDir('cc-secret-'));
    const secretFile = join(secretDir, 'token.txt');
    writeFileSync(secretFile, `${SECRET}\n`);
    const v = variants(secretFile).find((x) => x.name === name) as Variant;
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    if (v.project) writeFileSync(join(cwd, '.claude/settings.json'), JSON.stringify({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true, ...v.project } }));
    mkdirSync(join(home, '.claude'), { recursive: true });
    const command = [
      'echo "env=${MY_SECRET-unset}"',
      `echo "file=$(cat ${secretFile} 2>&1)"`,
      'env | grep -E "^(SSL_CERT_FILE|NODE_EXTRA_CA_CERTS|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|GIT_SSL_CAINFO|HTTPS?_PROXY)=" | sort',
      'echo done',
    ].join('; ');
    const server = await startLoopbackServer({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command, description: 'probe' } }], stopReason: 'tool_use' } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
      fallback: { content: [{ type: 'text', text: 'fallback' }] },
    });
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      ANTHROPIC_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: server.url,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      MY_SECRET: SECRET,
    };
    const out: string[] = [];
    const stderr: string[] = [];
    try {
      const q = query({
        prompt: 'go',
        options: {
          pathToClaudeCodeExecutable: CLAUDE,
          cwd,
          env,
          model: 'claude-sonnet-4-5',
          settingSources: ['user', 'project', 'local'],
          ...(v.option ? { sandbox: { enabled: true, autoAllowBashIfSandboxed: true, ...v.option } } : {}),
          canUseTool: async (_n, input) => ({ behavior: 'allow', updatedInput: input }),
          stderr: (d) => stderr.push(d),
        },
      });
      for await (const m of q) {
        if (m.type === 'user' && Array.isArray(m.message.content)) {
          for (const b of m.message.content) if (b.type === 'tool_result') out.push(`tool_result(is_error=${String(b.is_error)}): ${JSON.stringify(b.content)}`);
        }
        if (m.type === 'result') out.push(`result: ${m.subtype} ${m.subtype === 'success' ? m.result : JSON.stringify(m.errors)}`);
      }
    } catch (e) {
      out.push(`threw: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await server.close();
    }
    const sandboxLines = stderr.join('').split('\n').filter((l) => /sandbox|credential|tlsTerminate|Settings|invalid/i.test(l)).slice(0, 12);
    console.log(`### ${v.name}\n   ${out.join('\n   ')}\n   stderr: ${JSON.stringify(sandboxLines)}\n   model requests: ${server.requests.length}`);
  }, 120_000);
}
