// MEASUREMENT (not part of npm test): what Claude Code 2.1.330 does with the last sandbox keys agentd refused —
// `sandbox.network.allowManagedDomainsOnly`, `sandbox.filesystem.allowManagedReadPathsOnly` and
// `sandbox.filesystem.disabled` — from each layer: the user file, the project file, `--settings` (the SDK's
// `settings` option), the SDK's `managedSettings` (`--managed-settings`) and an admin policy file
// (/etc/claude-code/managed-settings.json inside a private mount namespace: an overlay of /etc made by
// `unshare -m`, root only; the machine's /etc is never touched). Drives the reference binary (or bin/agentd with
// TARGET=agentd) through the official TS SDK against the loopback model; one sandboxed Bash call probes:
//  - net: `curl` through the sandbox's proxy to http://localhost:<port>/ and http://127.0.0.1:<port>/ (a loopback
//    HTTP server; 200 reached, 403 refused by the proxy, 000 not reachable at all);
//  - read: three files under a secret directory S: S/a (under denyRead S), S/open/b (re-allowed by a non-managed
//    allowRead), S/mopen/c (re-allowed by a managed allowRead);
//  - write: touch a file outside the working directory (the filesystem confinement).
// Run: npx vitest run -c test/measure/vitest.measure.config.ts test/measure/sandbox-managed.measure.ts
// One group: ONLY=N,R (name prefixes). The callback denies Claude Code's network prompt (SandboxNetworkAccess) for
// a host on no list, so a host reached was let through by the settings.
//
// FINDINGS (Claude Code 2.1.330, Linux, bwrap + socat; README "The `sandbox` settings" repeats them):
// - None of the three keys stops a session from any layer (P1: a project file with all three runs, confined).
// - network.allowManagedDomainsOnly: from the SDK's managedSettings (N1) and the admin file (N2) only the managed
//   allowedDomains are reached; those of the user (N1), project (N7) and --settings (N8) layers, and a user
//   WebFetch(domain:…) allow rule (NB), are refused without a prompt: `<sandbox_violations>` "deny
//   network-outbound 127.0.0.1:P (the organization's managed allowlist does not include this host, and only
//   managed settings can add it)". The admin file's own WebFetch(domain:…) allow rule counts (NC). Alone (no managed
//   list) nothing is reached (N6). deniedDomains of every layer still deny (NA, "host is on the deny list"). A
//   project `enabled: false` does not turn the sandbox off (NH). From the user (N4), project (N3) or --settings
//   (N5) layer it does nothing, silently. false locks nothing (NI). managedSettings' allowedDomains are honoured
//   without the lock too (N9).
// - filesystem.allowManagedReadPathsOnly: from managedSettings (R1, R6) and the admin file (R2) the allowRead of
//   other layers is dropped (the file they re-opened under a denyRead is unreadable), a project's own carve-out
//   too (RB); the managed allowRead applies. From the user, project or --settings layer it does nothing (R3-R5).
//   managedSettings' allowRead is honoured without the lock (R7).
// - filesystem.disabled: honoured from the user file (F1), --settings (F3) and the admin file (F5): writes outside
//   the working directory succeed and denyRead is not enforced, the network stays confined; a user's own
//   credentials.files deny entry is dropped with it (FD). Not from the project file (F2) nor from managedSettings
//   (F4: its policy tier keeps restrictive values). Ignored from every other layer when managed settings configure
//   sandbox.filesystem at all (F6, F7, FF; managedSettings' `disabled: false`, FE) or list a credentials.files deny
//   entry (F8: that file stays unreadable, writes outside fail); a managed credentials.envVars entry does not pin
//   it (F9). A later layer's false wins over a lower true (FB).
// - Wrong types: in managed settings (managedSettings or the admin file) a lock of the wrong type is read as true
//   and `disabled` as false, with a stderr warning "Managed settings contain invalid entries … treating it as
//   true, its restrictive value" (ND, NE, R8, R9, FC). In the user or project file a wrong type drops the WHOLE
//   file with a system/informational settings_not_in_effect frame (NF, NG, FA): with `enabled` in that user file
//   the sandbox does not run at all (NF, FA: writes outside succeed).
import { chmodSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { startLoopbackServer } from '../support/loopback-server.js';
import { AGENTD, ROOT, tempDir } from '../support/daemon.js';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');
const TARGET = process.env['TARGET'] === 'agentd' ? AGENTD : CLAUDE;

type Block = Record<string, unknown>;
interface Variant {
  name: string;
  /** `sandbox` blocks (S is replaced by the secret directory). */
  user?: Block;
  project?: Block;
  flag?: Block;
  sdkManaged?: Block;
  admin?: Block;
  /** Whole settings objects beside the sandbox block (e.g. permissions), per layer. */
  userExtra?: Block;
  adminExtra?: Block;
  sdkManagedExtra?: Block;
  /** The `enabled`/`autoAllowBashIfSandboxed` base goes here (default: user). */
  base?: 'user' | 'project' | 'flag' | 'sdkManaged' | 'admin';
}

const ALLOW_LOCALHOST = { network: { allowedDomains: ['localhost'] } };
const ALLOW_127 = { network: { allowedDomains: ['127.0.0.1'] } };

const variants: Variant[] = [
  // allowManagedDomainsOnly
  { name: 'N0 control: user allows 127.0.0.1', user: ALLOW_127 },
  { name: 'N1 sdk managed lock + managed allows localhost; user allows 127.0.0.1', user: ALLOW_127, sdkManaged: { network: { allowManagedDomainsOnly: true, allowedDomains: ['localhost'] } } },
  { name: 'N2 admin lock + admin allows localhost; user allows 127.0.0.1', user: ALLOW_127, admin: { network: { allowManagedDomainsOnly: true, allowedDomains: ['localhost'] } } },
  { name: 'N3 project lock; user allows 127.0.0.1', user: ALLOW_127, project: { network: { allowManagedDomainsOnly: true } } },
  { name: 'N4 user lock; user allows 127.0.0.1', user: { network: { allowManagedDomainsOnly: true, allowedDomains: ['127.0.0.1'] } } },
  { name: 'N5 flag lock; flag allows 127.0.0.1', flag: { network: { allowManagedDomainsOnly: true, allowedDomains: ['127.0.0.1'] } } },
  { name: 'N6 sdk managed lock alone; user allows 127.0.0.1', user: ALLOW_127, sdkManaged: { network: { allowManagedDomainsOnly: true } } },
  { name: 'N7 sdk managed lock + localhost; project allows 127.0.0.1', project: ALLOW_127, sdkManaged: { network: { allowManagedDomainsOnly: true, allowedDomains: ['localhost'] } } },
  { name: 'N8 sdk managed lock + localhost; flag allows 127.0.0.1', flag: ALLOW_127, sdkManaged: { network: { allowManagedDomainsOnly: true, allowedDomains: ['localhost'] } } },
  { name: 'N9 sdk managed allows localhost, no lock; user nothing', sdkManaged: ALLOW_LOCALHOST },
  { name: 'NA sdk managed lock + localhost; user denies localhost', user: { network: { deniedDomains: ['localhost'] } }, sdkManaged: { network: { allowManagedDomainsOnly: true, allowedDomains: ['localhost'] } } },
  { name: 'NB sdk managed lock; user WebFetch(domain:127.0.0.1) allow rule', userExtra: { permissions: { allow: ['WebFetch(domain:127.0.0.1)'] } }, sdkManaged: { network: { allowManagedDomainsOnly: true } } },
  { name: 'NC admin lock; admin WebFetch(domain:localhost) allow rule; user allows 127.0.0.1', user: ALLOW_127, admin: { network: { allowManagedDomainsOnly: true } }, adminExtra: { permissions: { allow: ['WebFetch(domain:localhost)'] } } },
  { name: 'ND sdk managed lock "yes" (string); user allows 127.0.0.1', user: ALLOW_127, sdkManaged: { network: { allowManagedDomainsOnly: 'yes' } } },
  { name: 'NE admin lock "yes" (string); user allows 127.0.0.1', user: ALLOW_127, admin: { network: { allowManagedDomainsOnly: 'yes' } } },
  { name: 'NF user lock "yes" (string); user allows 127.0.0.1', user: { network: { allowManagedDomainsOnly: 'yes', allowedDomains: ['127.0.0.1'] } } },
  { name: 'NG project lock "yes" (string); user allows 127.0.0.1', user: ALLOW_127, project: { network: { allowManagedDomainsOnly: 'yes' } } },
  { name: 'NH sdk managed lock + localhost; project enabled false', base: 'user', project: { enabled: false }, sdkManaged: { network: { allowManagedDomainsOnly: true, allowedDomains: ['localhost'] } } },
  { name: 'NI sdk managed lock false; user allows 127.0.0.1', user: ALLOW_127, sdkManaged: { network: { allowManagedDomainsOnly: false, allowedDomains: ['localhost'] } } },
  // allowManagedReadPathsOnly (user denyRead S and allowRead S/open unless said otherwise)
  { name: 'R0 control: user denyRead S, allowRead S/open', user: { filesystem: { denyRead: ['S'], allowRead: ['S/open'] } } },
  { name: 'R1 sdk managed lock + allowRead S/mopen', user: { filesystem: { denyRead: ['S'], allowRead: ['S/open'] } }, sdkManaged: { filesystem: { allowManagedReadPathsOnly: true, allowRead: ['S/mopen'] } } },
  { name: 'R2 admin lock + allowRead S/mopen', user: { filesystem: { denyRead: ['S'], allowRead: ['S/open'] } }, admin: { filesystem: { allowManagedReadPathsOnly: true, allowRead: ['S/mopen'] } } },
  { name: 'R3 project lock', user: { filesystem: { denyRead: ['S'], allowRead: ['S/open'] } }, project: { filesystem: { allowManagedReadPathsOnly: true } } },
  { name: 'R4 user lock', user: { filesystem: { denyRead: ['S'], allowRead: ['S/open'], allowManagedReadPathsOnly: true } } },
  { name: 'R5 flag lock', flag: { filesystem: { denyRead: ['S'], allowRead: ['S/open'], allowManagedReadPathsOnly: true } } },
  { name: 'R6 sdk managed lock alone', user: { filesystem: { denyRead: ['S'], allowRead: ['S/open'] } }, sdkManaged: { filesystem: { allowManagedReadPathsOnly: true } } },
  { name: 'R7 sdk managed allowRead S/mopen, no lock', user: { filesystem: { denyRead: ['S'], allowRead: ['S/open'] } }, sdkManaged: { filesystem: { allowRead: ['S/mopen'] } } },
  { name: 'R8 sdk managed lock "yes" (string)', user: { filesystem: { denyRead: ['S'], allowRead: ['S/open'] } }, sdkManaged: { filesystem: { allowManagedReadPathsOnly: 'yes' } } },
  { name: 'R9 admin lock "yes" (string)', user: { filesystem: { denyRead: ['S'], allowRead: ['S/open'] } }, admin: { filesystem: { allowManagedReadPathsOnly: 'yes' } } },
  { name: 'RA sdk managed lock; denyRead S in managed, user allowRead S/open', user: { filesystem: { allowRead: ['S/open'] } }, sdkManaged: { filesystem: { allowManagedReadPathsOnly: true, denyRead: ['S'] } } },
  { name: 'RB project denyRead S + allowRead S/open (own carve-out), sdk managed lock', project: { filesystem: { denyRead: ['S'], allowRead: ['S/open'] } }, sdkManaged: { filesystem: { allowManagedReadPathsOnly: true } } },
  // filesystem.disabled (user denyRead S unless said otherwise)
  { name: 'F0 control: user denyRead S', user: { filesystem: { denyRead: ['S'] } } },
  { name: 'F1 user disabled', user: { filesystem: { denyRead: ['S'], disabled: true } } },
  { name: 'F2 project disabled', user: { filesystem: { denyRead: ['S'] } }, project: { filesystem: { disabled: true } } },
  { name: 'F3 flag disabled', user: { filesystem: { denyRead: ['S'] } }, flag: { filesystem: { disabled: true } } },
  { name: 'F4 sdk managed disabled', user: { filesystem: { denyRead: ['S'] } }, sdkManaged: { filesystem: { disabled: true } } },
  { name: 'F5 admin disabled', user: { filesystem: { denyRead: ['S'] } }, admin: { filesystem: { disabled: true } } },
  { name: 'F6 admin filesystem denyRead S + user disabled', admin: { filesystem: { denyRead: ['S'] } }, user: { filesystem: { disabled: true } } },
  { name: 'F7 sdk managed filesystem denyRead S + user disabled', sdkManaged: { filesystem: { denyRead: ['S'] } }, user: { filesystem: { disabled: true } } },
  { name: 'F8 sdk managed credentials.files deny S/a + user disabled', sdkManaged: { credentials: { files: [{ path: 'S/a', mode: 'deny' }] } }, user: { filesystem: { disabled: true } } },
  { name: 'F9 sdk managed credentials.envVars deny + user disabled', sdkManaged: { credentials: { envVars: [{ name: 'NOPE', mode: 'deny' }] } }, user: { filesystem: { denyRead: ['S'], disabled: true } } },
  { name: 'FA user disabled "true" (string)', user: { filesystem: { denyRead: ['S'], disabled: 'true' } } },
  { name: 'FB flag disabled false + user disabled true', user: { filesystem: { denyRead: ['S'], disabled: true } }, flag: { filesystem: { disabled: false } } },
  { name: 'FC admin disabled "yes" (string)', user: { filesystem: { denyRead: ['S'] } }, admin: { filesystem: { disabled: 'yes' } } },
  { name: 'FD user disabled + user credentials.files deny S/a', user: { filesystem: { disabled: true }, credentials: { files: [{ path: 'S/a', mode: 'deny' }] } } },
  { name: 'FE sdk managed disabled false + user disabled', user: { filesystem: { denyRead: ['S'], disabled: true } }, sdkManaged: { filesystem: { disabled: false } } },
  { name: 'FF admin allowWrite only + user disabled', admin: { filesystem: { allowWrite: ['/nonexistent-x'] } }, user: { filesystem: { denyRead: ['S'], disabled: true } } },
  // All three from a project file (and a user file): does the session start?
  { name: 'P1 project carries all three', base: 'project', project: { network: { allowManagedDomainsOnly: true }, filesystem: { allowManagedReadPathsOnly: true, disabled: true } } },
];

function adminWrapper(dir: string, policy: Block): string {
  const upper = join(dir, 'upper');
  mkdirSync(join(upper, 'claude-code'), { recursive: true });
  mkdirSync(join(dir, 'work'), { recursive: true });
  mkdirSync(join(dir, 'merged'), { recursive: true });
  writeFileSync(join(upper, 'claude-code', 'managed-settings.json'), JSON.stringify(policy));
  const script = join(dir, 'with-policy.sh');
  writeFileSync(
    script,
    `#!/bin/sh\nexec unshare -m sh -c 'mount -t overlay overlay -o lowerdir=/etc,upperdir=${upper},workdir=${join(dir, 'work')} ${join(dir, 'merged')} && mount --bind ${join(dir, 'merged')} /etc && exec "$0" "$@"' ${TARGET} "$@"\n`,
  );
  chmodSync(script, 0o755);
  return script;
}

let port = 0;
const web = createServer((req, res) => res.end(`hello from ${req.headers.host}`));
beforeAll(async () => {
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  port = (web.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => web.close(() => r())));

const only = process.env['ONLY']?.split(',');
for (const v of variants.filter((x) => !only || only.some((o) => x.name.startsWith(o)))) {
  it(v.name, async () => {
    const cwd = realpathSync(tempDir('cc-sbm-'));
    const home = realpathSync(tempDir('cc-home-'));
    const secret = realpathSync(tempDir('cc-secret-'));
    const outside = realpathSync(tempDir('cc-outside-'));
    mkdirSync(join(secret, 'open'));
    mkdirSync(join(secret, 'mopen'));
    writeFileSync(join(secret, 'a'), 'A-secret\n');
    writeFileSync(join(secret, 'open', 'b'), 'B-open\n');
    writeFileSync(join(secret, 'mopen', 'c'), 'C-mopen\n');
    const sub = (b: Block | undefined): Block | undefined => (b ? (JSON.parse(JSON.stringify(b).replaceAll('"S/', `"${secret}/`).replaceAll('"S"', `"${secret}"`)) as Block) : undefined);
    const base = v.base ?? 'user';
    const layer = (which: NonNullable<Variant['base']>, block: Block | undefined, extra?: Block): Block | undefined => {
      const sb = { ...(which === base ? { enabled: true, autoAllowBashIfSandboxed: true } : {}), ...sub(block) };
      if (Object.keys(sb).length === 0 && !extra) return undefined;
      return { ...extra, ...(Object.keys(sb).length ? { sandbox: sb } : {}) };
    };
    const user = layer('user', v.user, v.userExtra);
    const project = layer('project', v.project);
    const flag = layer('flag', v.flag);
    const sdkManaged = layer('sdkManaged', v.sdkManaged, v.sdkManagedExtra);
    const admin = layer('admin', v.admin, v.adminExtra);
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    mkdirSync(join(home, '.claude'), { recursive: true });
    if (project) writeFileSync(join(cwd, '.claude/settings.json'), JSON.stringify(project));
    if (user) writeFileSync(join(home, '.claude/settings.json'), JSON.stringify(user));
    const command = [
      `echo "net localhost=$(curl --noproxy '' -sS -m 5 -o /dev/null -w '%{http_code}' http://localhost:${port}/ 2>/dev/null)"`,
      `echo "net 127=$(curl --noproxy '' -sS -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/ 2>/dev/null)"`,
      `echo "read a=$(cat ${secret}/a 2>&1 | head -c 60)"`,
      `echo "read b=$(cat ${secret}/open/b 2>&1 | head -c 60)"`,
      `echo "read c=$(cat ${secret}/mopen/c 2>&1 | head -c 60)"`,
      `touch ${outside}/w 2>/dev/null; echo "write outside rc=$?"`,
    ].join('; ');
    const server = await startLoopbackServer({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command, description: 'probe' } }], stopReason: 'tool_use' } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
      fallback: { content: [{ type: 'text', text: 'fallback' }] },
    });
    const policyDir = tempDir('cc-policy-');
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
      // agentd reads its admin policy here (Claude Code reads /etc/claude-code, overlaid below).
      AGENTD_MANAGED_SETTINGS_DIR: admin ? join(policyDir, 'upper', 'claude-code') : join(home, 'no-policy'),
    };
    const exe = admin ? adminWrapper(policyDir, admin) : TARGET;
    const out: string[] = [];
    const stderr: string[] = [];
    const asked: string[] = [];
    try {
      const q = query({
        prompt: 'go',
        options: {
          pathToClaudeCodeExecutable: exe,
          cwd,
          env,
          model: 'claude-sonnet-4-5',
          settingSources: ['user', 'project', 'local'],
          ...(flag ? { settings: flag } : {}),
          ...(sdkManaged ? { managedSettings: sdkManaged } : {}),
          // Bash is allowed; anything else (Claude Code's network prompt for a host not on the list) is denied
          // and recorded, so that a host reached was allowed by the settings, not by this callback.
          canUseTool: async (n, input) => {
            asked.push(`${n}:${JSON.stringify(input).slice(0, 120)}`);
            return n === 'Bash' ? { behavior: 'allow', updatedInput: input } : { behavior: 'deny', message: 'denied by the measurement' };
          },
          stderr: (d) => stderr.push(d),
        },
      });
      for await (const m of q) {
        if (m.type === 'user' && Array.isArray(m.message.content)) {
          for (const b of m.message.content) if (b.type === 'tool_result') out.push(`tool_result(is_error=${String(b.is_error)}): ${typeof b.content === 'string' ? b.content : JSON.stringify(b.content)}`);
        }
        if (m.type === 'system' && m.subtype !== 'init') out.push(`system: ${JSON.stringify(m).replace(/"(uuid|session_id)":"[^"]*",?/g, '').slice(0, 500)}`);
        if (m.type === 'result') out.push(`result: ${m.subtype} ${m.subtype === 'success' ? m.result : JSON.stringify(m.errors)}`);
      }
    } catch (e) {
      out.push(`threw: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await server.close();
      rmSync(join(outside, 'w'), { force: true });
    }
    const lines = stderr.join('').split('\n').filter((l) => /sandbox|Settings|invalid|managed|allowManaged|disabled|filesystem/i.test(l)).slice(0, 10);
    console.log(`### ${v.name}\n   ${out.join('\n   ').replaceAll(secret, 'S')}\n   asked: ${JSON.stringify(asked).replaceAll(String(port), 'P')}\n   stderr: ${JSON.stringify(lines).replaceAll(secret, 'S')}\n   model requests: ${server.requests.length}`);
  }, 120_000);
}
