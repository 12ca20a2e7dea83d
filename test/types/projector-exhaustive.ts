// Type-level test, checked by `tsc` in `npm test` (test/ is in tsconfig's include): a switch over SessionEvent
// that ends in assertNever, as control/projector.ts's does, fails to compile when a variant has no case. If the
// `@ts-expect-error` below stopped being needed (the missing case no longer fails), tsc would report it unused.
import type { Projector } from '../../src/control/projector.js';
import type { SessionEvent } from '../../src/thread/events.js';
import { assertNever } from '../../src/util/assert-never.js';

/** Every variant handled: compiles. */
export function complete(ev: SessionEvent): string {
  switch (ev.type) {
    case 'turn_started':
    case 'state':
    case 'user_replay':
    case 'model_request':
    case 'stream':
    case 'assistant_block':
    case 'tool_result':
    case 'user_text':
    case 'tool_progress':
    case 'api_retry':
    case 'permission_mode_changed':
    case 'permission_denied':
    case 'turn_result':
    case 'usage':
    case 'hook_started':
    case 'hook_response':
    case 'local_command_output':
    case 'conversation_reset':
    case 'commands_changed':
    case 'file_warning':
    case 'transcript_relinked':
    case 'transcript_writes':
    case 'writes_lost':
    case 'compact_status':
    case 'compact_boundary':
    case 'compact_summary':
    case 'task_started':
    case 'task_progress':
    case 'task_updated':
    case 'task_notification':
    case 'background_tasks_changed':
      return ev.type;
    default:
      return assertNever(ev);
  }
}

/** One variant ('writes_lost') without a case: tsc rejects the assertNever call. */
export function missingOne(ev: SessionEvent): string {
  switch (ev.type) {
    case 'turn_started':
    case 'state':
    case 'user_replay':
    case 'model_request':
    case 'stream':
    case 'assistant_block':
    case 'tool_result':
    case 'user_text':
    case 'tool_progress':
    case 'api_retry':
    case 'permission_mode_changed':
    case 'permission_denied':
    case 'turn_result':
    case 'usage':
    case 'hook_started':
    case 'hook_response':
    case 'file_warning':
    case 'transcript_relinked':
    case 'transcript_writes':
    case 'compact_status':
    case 'compact_boundary':
    case 'compact_summary':
      return ev.type;
    default:
      // @ts-expect-error -- 'writes_lost' reaches the default, so `ev` is not `never`.
      return assertNever(ev);
  }
}

/** The projector takes exactly SessionEvent (its switch is the one the two functions above model). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export const projectorTakesSessionEvent: Equal<Parameters<Projector['emit']>[0], SessionEvent> = true;
