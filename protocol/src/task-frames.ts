// The task lifecycle frames (system/task_started, task_progress, task_notification, background_tasks_changed)
// as Claude Code 2.1.330 sends them for subagents (observed by
// driving the native binary: protocol.md §5.7). agentd sends them for Agent tool calls (task_type local_agent).
import * as z from 'zod/mini';
import { Ids } from './ids.js';

/** The fields naming a task in the frames about it (a function: the schemas are built on first use). */
const taskRef = () => ({ task_id: z.string(), run_id: z.optional(z.string()), tool_use_id: z.optional(z.string()) });

const TaskUsage = z.lazy(() => z.strictObject({ total_tokens: z.number(), tool_uses: z.number(), duration_ms: z.number() }));

export const SystemTaskStartedFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('task_started'),
  ...taskRef(),
  description: z.string(),
  subagent_type: z.optional(z.string()),
  is_backgrounded: z.optional(z.boolean()),
  spawn_depth: z.optional(z.number()),
  task_type: z.optional(z.string()),
  prompt: z.optional(z.string()),
  ...Ids,
}));
export type SystemTaskStartedFrame = z.infer<typeof SystemTaskStartedFrame>;

export const SystemTaskProgressFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('task_progress'),
  ...taskRef(),
  description: z.string(),
  subagent_type: z.optional(z.string()),
  usage: TaskUsage,
  last_tool_name: z.optional(z.string()),
  ...Ids,
}));
export type SystemTaskProgressFrame = z.infer<typeof SystemTaskProgressFrame>;

export const SystemTaskNotificationFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('task_notification'),
  ...taskRef(),
  status: z.enum(['completed', 'failed', 'stopped']),
  output_file: z.string(),
  summary: z.string(),
  /** Claude Code: the summary is the agent's final report (a background agent's), not its description. */
  summary_is_report: z.optional(z.boolean()),
  usage: z.optional(TaskUsage),
  ...Ids,
}));
export type SystemTaskNotificationFrame = z.infer<typeof SystemTaskNotificationFrame>;

/** A task's state changed; agentd sends it as a task ends (status and end time), right before task_notification. */
export const SystemTaskUpdatedFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('task_updated'),
  task_id: z.string(),
  run_id: z.optional(z.string()),
  patch: z.strictObject({
    status: z.optional(z.enum(['running', 'completed', 'failed', 'killed'])),
    description: z.optional(z.string()),
    end_time: z.optional(z.number()),
    total_paused_ms: z.optional(z.number()),
    error: z.optional(z.string()),
    is_backgrounded: z.optional(z.boolean()),
  }),
  ...Ids,
}));
export type SystemTaskUpdatedFrame = z.infer<typeof SystemTaskUpdatedFrame>;

/** The running background tasks, replacing the previous list (sent when one starts or ends). */
export const SystemBackgroundTasksChangedFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('background_tasks_changed'),
  tasks: z.array(
    z.strictObject({
      task_id: z.string(),
      run_id: z.optional(z.string()),
      task_type: z.string(),
      subagent_type: z.optional(z.string()),
      description: z.string(),
    }),
  ),
  ...Ids,
}));
export type SystemBackgroundTasksChangedFrame = z.infer<typeof SystemBackgroundTasksChangedFrame>;
