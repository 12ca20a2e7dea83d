import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PERMISSION_MODES } from '../../protocol/src/index.js';
import { PERMISSION_MODE_NAMES } from '../../src/permissions/modes.js';
import { AGENTD_VERSION } from '../../src/version.js';
import { ROOT } from '../support/daemon.js';

describe('kept in step', () => {
  it('AGENTD_VERSION equals package.json', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(AGENTD_VERSION).toBe(pkg.version);
  });
  it('the core’s permission modes equal the protocol’s', () => {
    expect([...PERMISSION_MODE_NAMES]).toEqual([...PERMISSION_MODES]);
  });
});
