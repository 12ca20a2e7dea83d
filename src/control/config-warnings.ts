// A file agentd skipped or cut (the core's one `file_warning` event) as the frame hosts have always received for
// it; the wire is unchanged by the event being one. A context file (memory file, import, output style) is
// Claude Code's own `system/informational` banner at level `warning`, which hosts render (claude-agent-acp shows
// it as a warning notice). A settings or project file is agentd's additive `system/agentd_warning` with a stable
// `code` and the `path` (protocol/CHANGELOG.md); Claude Code skips such files without a word. What a repository
// carries that was not used because the repository is not trusted is `project_untrusted`; variables a trusted
// repository's settings may not set, `project_env_refused`.
import type { SystemAgentdWarningFrame, SystemInformationalFrame } from '../../protocol/src/index.js';
import type { SessionEvent } from '../thread/events.js';

export function fileWarningFrame(
  ev: Extract<SessionEvent, { type: 'file_warning' }>,
  ids: { uuid: string; session_id: string },
): SystemAgentdWarningFrame | SystemInformationalFrame {
  switch (ev.file) {
    case 'context':
      return { type: 'system', subtype: 'informational', content: ev.message, level: 'warning', ...ids };
    case 'settings':
      return { type: 'system', subtype: 'agentd_warning', code: 'settings_file_invalid', message: `${ev.message}; the file was skipped.`, path: ev.path, ...ids };
    case 'settings_key':
      // A key honoured with a fail-closed reading (the rest of the file is used).
      return { type: 'system', subtype: 'agentd_warning', code: 'settings_key_invalid', message: ev.message, path: ev.path, ...ids };
    case 'project':
      return { type: 'system', subtype: 'agentd_warning', code: 'project_file_skipped', message: ev.message, path: ev.path, ...ids };
    case 'untrusted':
      return { type: 'system', subtype: 'agentd_warning', code: 'project_untrusted', message: ev.message, path: ev.path, ...ids };
    case 'env':
      return { type: 'system', subtype: 'agentd_warning', code: 'project_env_refused', message: ev.message, path: ev.path, ...ids };
  }
}
