// The sandbox keys that depend on the layer that sets them, through the official SDK (issue 21), as Claude Code
// 2.1.330 applies them (test/measure/sandbox-managed.measure.ts): `managedSettings`' allowManagedDomainsOnly
// closes the hosts a user or project file allowed (the managed ones stay open), its allowManagedReadPathsOnly
// closes what a user file's allowRead re-opened; a repository's .claude/settings.json carrying any of the three
// keys starts and runs confined; the user file's filesystem.disabled lifts the filesystem rules and keeps the
// network closed. Needs bwrap, socat and curl (.ci/run installs them).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/daemon.js';
import { collect, query, scriptedRun, toolResults } from '../support/sdk-run.js';

let hits: string[] = [];
const server = createServer((req, res) => {
  hits.push(req.headers.host ?? '');
  res.end(`hello from ${req.headers.host}`);
});
let port = 0;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command } });
const bashTurn = (calls: Array<ReturnType<typeof bash>>) =>
  scriptedRun({
    rules: [
      { when: { hasToolResults: false }, reply: { content: calls } },
      { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'checked' }] } },
    ],
  });
/** Through the sandbox's proxy: the HTTP status (200 reached, 403 refused by the proxy). */
const curl = (id: string, host: string) => bash(id, `curl --noproxy '' -sS -m 5 -o /dev/null -w '%{http_code}' http://${host}:${port}/`);
const ON = { enabled: true, autoAllowBashIfSandboxed: true };
const writeJson = (path: string, v: unknown): void => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(v));
};

describe('managed-only sandbox keys through the SDK', () => {
  it("managedSettings' allowManagedDomainsOnly closes the host the user and project files allowed; the managed one stays open", async () => {
    const calls = [curl('managed', 'localhost'), curl('user', '127.0.0.1')];
    const files = (run: ReturnType<typeof bashTurn>): void => {
      writeJson(join(run.home, '.claude', 'settings.json'), { sandbox: { network: { allowedDomains: ['127.0.0.1'] } } });
      writeJson(join(run.cwd, '.claude', 'settings.json'), { sandbox: { network: { allowedDomains: ['127.0.0.1'] } } });
    };
    // Without the lock, the user file's host is reached (and localhost, allowed by no one, is refused).
    const control = bashTurn(calls);
    files(control);
    hits = [];
    const open = await collect(query({ prompt: 'go', options: control.options({ sandbox: ON, settingSources: ['user', 'project'] }) }));
    expect(toolResults(open)).toEqual([
      ['managed', false, `403\n<sandbox_violations>\ndeny network-outbound localhost:${port} (host is not on the allow list)\n</sandbox_violations>`],
      ['user', false, '200'],
    ]);
    expect(hits).toEqual([`127.0.0.1:${port}`]);

    const run = bashTurn(calls);
    files(run);
    hits = [];
    const managedSettings = { sandbox: { network: { allowManagedDomainsOnly: true, allowedDomains: ['localhost'] } } };
    const msgs = await collect(query({ prompt: 'go', options: run.options({ sandbox: ON, settingSources: ['user', 'project'], managedSettings }) }));
    // Claude Code's words for the refusal (measured).
    expect(toolResults(msgs)).toEqual([
      ['managed', false, '200'],
      ['user', false, `403\n<sandbox_violations>\ndeny network-outbound 127.0.0.1:${port} (the organization's managed allowlist does not include this host, and only managed settings can add it)\n</sandbox_violations>`],
    ]);
    expect(hits).toEqual([`localhost:${port}`]);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'checked' });
  });

  it("managedSettings' allowManagedReadPathsOnly closes what the user file's allowRead re-opened; the managed allowRead stays open", async () => {
    const secret = tempDir('agentd-sbm-secret-');
    for (const [p, text] of [['a', 'A'], ['open/b', 'B'], ['corp/c', 'C']] as const) writeJson(join(secret, p), text);
    const run = bashTurn([bash('read', `for f in a open/b corp/c; do cat ${secret}/$f >/dev/null 2>&1 && echo "$f readable" || echo "$f denied"; done`)]);
    writeJson(join(run.home, '.claude', 'settings.json'), { sandbox: { filesystem: { denyRead: [secret], allowRead: [join(secret, 'open')] } } });
    const managedSettings = { sandbox: { filesystem: { allowManagedReadPathsOnly: true, allowRead: [join(secret, 'corp')] } } };
    const msgs = await collect(query({ prompt: 'go', options: run.options({ sandbox: ON, settingSources: ['user'], managedSettings }) }));
    expect(toolResults(msgs)).toEqual([['read', false, 'a denied\nopen/b denied\ncorp/c readable']]);
  });

  // Each key alone in a repository's file (the sandbox it turns on included): the session starts, the key does
  // nothing, commands run confined.
  for (const [key, block] of [
    ['network.allowManagedDomainsOnly', { network: { allowManagedDomainsOnly: true } }],
    ['filesystem.allowManagedReadPathsOnly', { filesystem: { allowManagedReadPathsOnly: true } }],
    ['filesystem.disabled', { filesystem: { disabled: true } }],
  ] as const) {
    it(`a project file carrying sandbox.${key} does not stop the session, and changes nothing`, async () => {
      const outside = tempDir('agentd-outside-');
      const run = bashTurn([bash('out', `touch ${outside}/escaped; echo rc=$?`), curl('net', 'localhost')]);
      writeJson(join(run.cwd, '.claude', 'settings.json'), { sandbox: { enabled: true, ...block } });
      hits = [];
      const msgs = await collect(query({ prompt: 'go', options: run.options({ sandbox: { ...ON, network: { allowedDomains: ['localhost'] } }, settingSources: ['project'] }) }));
      expect(toolResults(msgs)).toEqual([
        ['out', false, `touch: cannot touch '${outside}/escaped': Read-only file system\nrc=1`],
        ['net', false, '200'],
      ]);
      expect(existsSync(join(outside, 'escaped'))).toBe(false);
      expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'checked' });
    });
  }

  it("the user file's filesystem.disabled lifts the filesystem rules (writes outside, denyRead) and keeps the network closed", async () => {
    const outside = tempDir('agentd-outside-');
    const secret = tempDir('agentd-sbm-secret-');
    writeFileSync(join(secret, 'a'), 'A');
    const run = bashTurn([bash('out', `touch ${outside}/written; echo rc=$?`), bash('read', `cat ${secret}/a`), curl('net', '127.0.0.1')]);
    writeJson(join(run.home, '.claude', 'settings.json'), { sandbox: { filesystem: { denyRead: [secret], disabled: true } } });
    hits = [];
    const msgs = await collect(query({ prompt: 'go', options: run.options({ sandbox: { ...ON, network: { allowedDomains: ['localhost'] } }, settingSources: ['user'] }) }));
    expect(toolResults(msgs)).toEqual([
      ['out', false, 'rc=0'],
      ['read', false, 'A'],
      ['net', false, `403\n<sandbox_violations>\ndeny network-outbound 127.0.0.1:${port} (host is not on the allow list)\n</sandbox_violations>`],
    ]);
    expect(existsSync(join(outside, 'written'))).toBe(true);
    expect(hits).toEqual([]);
  });
});
