// The child environment tools, hooks and MCP servers get: credentials removed, agentd's markers added, and a
// usable PATH when agentd was given none.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHILD_PATH, childEnvironment } from '../../../src/tools/environment.js';

describe('childEnvironment', () => {
  it('removes credentials and marks the child', () => {
    expect(childEnvironment({ PATH: '/opt/bin', HOME: '/h', ANTHROPIC_API_KEY: 'sk-secret', X: undefined })).toEqual({
      PATH: '/opt/bin',
      HOME: '/h',
      CLAUDECODE: '1',
      AGENTD: '1',
    });
  });

  it('gives the default search path when PATH is empty or unset, and keeps any other PATH as is', () => {
    expect(DEFAULT_CHILD_PATH).toBe('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
    expect(childEnvironment({ PATH: '' })).toEqual({ PATH: DEFAULT_CHILD_PATH, CLAUDECODE: '1', AGENTD: '1' });
    expect(childEnvironment({})).toEqual({ PATH: DEFAULT_CHILD_PATH, CLAUDECODE: '1', AGENTD: '1' });
    expect(childEnvironment({ PATH: '/nowhere', AGENTD_PASS_CREDENTIALS_TO_TOOLS: '1' })).toEqual({ PATH: '/nowhere', AGENTD_PASS_CREDENTIALS_TO_TOOLS: '1' });
    expect(childEnvironment({ PATH: '', AGENTD_PASS_CREDENTIALS_TO_TOOLS: '1' })).toEqual({ PATH: DEFAULT_CHILD_PATH, AGENTD_PASS_CREDENTIALS_TO_TOOLS: '1' });
  });
});
