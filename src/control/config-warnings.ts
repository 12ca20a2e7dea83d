// The configuration problems a host should see (a settings file that is not JSON, …) as agentd's additive
// `system/agentd_warning` frames (protocol/CHANGELOG.md). Claude Code skips such files without a word.
import type { SystemAgentdWarningFrame } from '../../protocol/src/index.js';

export function configWarningFrames(
  problems: ReadonlyArray<{ file: string; message: string }>,
  ids: { sessionId: string; newUuid: () => string },
): SystemAgentdWarningFrame[] {
  return problems.map((p) => ({
    type: 'system',
    subtype: 'agentd_warning',
    code: 'settings_file_invalid',
    message: `${p.message}; the file was skipped.`,
    path: p.file,
    uuid: ids.newUuid(),
    session_id: ids.sessionId,
  }));
}
