// The transcript's notices to the host as frames: a resume's repaired parent links (agentd's
// system/agentd_transcript_relinked), writes that fail and recover (system/agentd_warning with its codes), and
// lines lost for good (Claude Code's system/session_writes_lost, with agentd's first_lost_uuid). See
// protocol/CHANGELOG.md and README, "Reliability".
import type { SystemAgentdWarningFrame, SystemSessionWritesLostFrame, SystemTranscriptRelinkedFrame } from '../../protocol/src/index.js';
import type { SessionEvent } from '../thread/events.js';
import { assertNever } from '../util/assert-never.js';

type TranscriptEvent = Extract<SessionEvent, { type: 'transcript_relinked' | 'transcript_writes' | 'writes_lost' }>;

export function transcriptFrame(
  ev: TranscriptEvent,
  ids: { uuid: string; session_id: string },
): SystemTranscriptRelinkedFrame | SystemAgentdWarningFrame | SystemSessionWritesLostFrame {
  switch (ev.type) {
    case 'transcript_relinked': {
      const n = ev.links.length;
      return {
        type: 'system',
        subtype: 'agentd_transcript_relinked',
        transcript_path: ev.path,
        message: `${n} ${n === 1 ? 'entry' : 'entries'} of the resumed transcript named a parent that could not be followed; each was linked to the entry before it, so the earlier turns are kept.`,
        links: ev.links.map((l) => ({ line: l.line, entry_uuid: l.uuid, parent_uuid: l.parentUuid, problem: l.problem, linked_to_uuid: l.linkedTo })),
        ...ids,
      };
    }
    case 'transcript_writes':
      return {
        type: 'system',
        subtype: 'agentd_warning',
        ...(ev.state === 'failing'
          ? { code: 'transcript_write_failed', message: `The session transcript could not be written (${ev.code}); its lines are held in memory and appended, in order, when writes succeed again.` }
          : { code: 'transcript_writes_recovered', message: `Transcript writes succeed again: the ${ev.lines} held line${ev.lines === 1 ? '' : 's'} were appended; nothing is missing.` }),
        path: ev.path,
        ...ids,
      };
    case 'writes_lost':
      return {
        type: 'system',
        subtype: 'session_writes_lost',
        error_code: ev.errorCode,
        lost: ['transcript'],
        transcript_session_ids: ev.sessionIds,
        ...(ev.firstLostUuid !== undefined ? { first_lost_uuid: ev.firstLostUuid } : {}),
        ...ids,
      };
    default:
      return assertNever(ev, 'transcript event');
  }
}
