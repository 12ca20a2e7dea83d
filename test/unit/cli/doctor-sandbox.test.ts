// `agentd doctor` reports whether the second wall (the read-only sandbox) is up, for each policy.
import { describe, expect, it } from 'vitest';
import { readOnlySandboxCheck } from '../../../src/cli/subcommands/doctor.js';

const PATH = process.env['PATH'] ?? '/usr/bin:/bin';

describe('doctor: Read-only sandbox', () => {
  it('active with bubblewrap (CI installs it)', async () => {
    const c = await readOnlySandboxCheck({ PATH });
    expect(c).toMatchObject({ name: 'Read-only sandbox', status: 'ok' });
    expect(c.detail).toMatch(/^active: bubblewrap \(\/.*bwrap\); read-only commands run without network, writes or reads outside the working directories$/);
  });

  it('missing bubblewrap: a warning under auto, a failure under required; off is a warning; a bad value fails', async () => {
    const missing = { bwrap: '/nonexistent/bwrap' };
    const reason = '/nonexistent/bwrap did not start: spawn /nonexistent/bwrap ENOENT';
    expect(await readOnlySandboxCheck({ PATH }, missing)).toEqual({
      name: 'Read-only sandbox',
      status: 'warn',
      detail: `${reason}: read-only commands run unconfined, guarded by the shell analyser only (install bubblewrap)`,
    });
    expect(await readOnlySandboxCheck({ PATH, AGENTD_READONLY_SANDBOX: 'required' }, missing)).toEqual({
      name: 'Read-only sandbox',
      status: 'fail',
      detail: `${reason}: AGENTD_READONLY_SANDBOX=required, so read-only commands ask before they run`,
    });
    expect(await readOnlySandboxCheck({ PATH: '/nonexistent', AGENTD_READONLY_SANDBOX: 'auto' })).toEqual({
      name: 'Read-only sandbox',
      status: 'warn',
      detail: 'bubblewrap (bwrap) is not installed: read-only commands run unconfined, guarded by the shell analyser only (install bubblewrap)',
    });
    expect(await readOnlySandboxCheck({ PATH, AGENTD_READONLY_SANDBOX: 'off' })).toEqual({
      name: 'Read-only sandbox',
      status: 'warn',
      detail: 'off (AGENTD_READONLY_SANDBOX=off): read-only commands run unconfined, guarded by the shell analyser only',
    });
    expect(await readOnlySandboxCheck({ PATH, AGENTD_READONLY_SANDBOX: 'yes' })).toEqual({
      name: 'Read-only sandbox',
      status: 'fail',
      detail: 'AGENTD_READONLY_SANDBOX must be one of required, auto, off (got "yes") (the daemon refuses to start)',
    });
  });
});
