// Task events → Claude Code's system/task_* and background_tasks_changed frames (kept out of projector.ts,
// which maps every other event; the projector calls this for the task variants).
import type { OutboundFrame, SystemTaskNotificationFrame } from '../../protocol/src/index.js';
import type { SessionEvent, TaskUsage } from '../thread/events.js';
import { assertNever } from '../util/assert-never.js';

type TaskEvent = Extract<SessionEvent, { type: 'task_started' | 'task_progress' | 'task_updated' | 'task_notification' | 'background_tasks_changed' }>;

function usageOf(u: TaskUsage): { total_tokens: number; tool_uses: number; duration_ms: number } {
  return { total_tokens: u.totalTokens, tool_uses: u.toolUses, duration_ms: u.durationMs };
}

export function taskFrame(ev: TaskEvent, ids: { uuid: string; session_id: string }): OutboundFrame {
  switch (ev.type) {
    case 'task_started':
      return {
        type: 'system',
        subtype: 'task_started',
        task_id: ev.task.id,
        tool_use_id: ev.task.toolUseId,
        description: ev.task.description,
        subagent_type: ev.task.subagentType,
        is_backgrounded: ev.task.background,
        spawn_depth: 1,
        task_type: ev.task.taskType,
        prompt: ev.prompt,
        ...ids,
      };
    case 'task_progress':
      return {
        type: 'system',
        subtype: 'task_progress',
        task_id: ev.task.id,
        tool_use_id: ev.task.toolUseId,
        description: ev.activity,
        subagent_type: ev.task.subagentType,
        usage: usageOf(ev.usage),
        last_tool_name: ev.lastToolName,
        ...ids,
      };
    case 'task_updated':
      return {
        type: 'system',
        subtype: 'task_updated',
        task_id: ev.task.id,
        patch: { status: ev.status, end_time: ev.endTime, ...(ev.error !== undefined ? { error: ev.error } : {}) },
        ...ids,
      };
    case 'task_notification': {
      const f: SystemTaskNotificationFrame = {
        type: 'system',
        subtype: 'task_notification',
        task_id: ev.task.id,
        tool_use_id: ev.task.toolUseId,
        status: ev.status,
        output_file: ev.task.outputFile,
        summary: ev.summary,
        ...ids,
      };
      if (ev.summaryIsReport) f.summary_is_report = true;
      if (ev.usage) f.usage = usageOf(ev.usage);
      return f;
    }
    case 'background_tasks_changed':
      return {
        type: 'system',
        subtype: 'background_tasks_changed',
        tasks: ev.tasks.map((t) => ({ task_id: t.id, task_type: t.taskType, subagent_type: t.subagentType, description: t.description })),
        ...ids,
      };
    default:
      return assertNever(ev, 'task event');
  }
}
