// The core's one `file_warning` event becomes the frame hosts have always received for that kind of file:
// Claude Code's informational banner for a context file, agentd_warning (with its code) for settings and
// project files. The frames parse with the wire schemas.
import { describe, expect, it } from 'vitest';
import { SystemAgentdWarningFrame, SystemInformationalFrame } from '../../../protocol/src/index.js';
import { fileWarningFrame } from '../../../src/control/config-warnings.js';

const ids = { uuid: 'u-1', session_id: 's-1' };

describe('fileWarningFrame', () => {
  it('maps each kind of file to its frame', () => {
    const context = fileWarningFrame({ type: 'file_warning', file: 'context', message: 'memory file /w/CLAUDE.md is binary; skipped', path: '/w/CLAUDE.md' }, ids);
    expect(context).toEqual({ type: 'system', subtype: 'informational', content: 'memory file /w/CLAUDE.md is binary; skipped', level: 'warning', uuid: 'u-1', session_id: 's-1' });
    expect(SystemInformationalFrame.safeParse(context).success).toBe(true);

    const settings = fileWarningFrame({ type: 'file_warning', file: 'settings', message: '/w/.claude/settings.json is not JSON', path: '/w/.claude/settings.json' }, ids);
    expect(settings).toEqual({
      type: 'system',
      subtype: 'agentd_warning',
      code: 'settings_file_invalid',
      message: '/w/.claude/settings.json is not JSON; the file was skipped.',
      path: '/w/.claude/settings.json',
      uuid: 'u-1',
      session_id: 's-1',
    });
    expect(SystemAgentdWarningFrame.safeParse(settings).success).toBe(true);

    const project = fileWarningFrame({ type: 'file_warning', file: 'project', message: 'command /w/.claude/commands/x.md: line 1: expected "key: value"; skipped', path: '/w/.claude/commands/x.md' }, ids);
    expect(project).toEqual({
      type: 'system',
      subtype: 'agentd_warning',
      code: 'project_file_skipped',
      message: 'command /w/.claude/commands/x.md: line 1: expected "key: value"; skipped',
      path: '/w/.claude/commands/x.md',
      uuid: 'u-1',
      session_id: 's-1',
    });
    expect(SystemAgentdWarningFrame.safeParse(project).success).toBe(true);
  });
});
