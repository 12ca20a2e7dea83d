// Frames of slash commands, skills and project files (issue 12): /clear's reset, the command list after a
// reload (a skipped project file is reported with system/agentd_warning, messages.ts).
import * as z from 'zod/mini';
import { Ids } from './ids.js';

/** /clear: the host mounts a fresh transcript (Claude Code's SDKConversationResetMessage). */
export const ConversationResetFrame = z.lazy(() => z.strictObject({
  type: z.literal('conversation_reset'),
  new_conversation_id: z.string(),
  trigger: z.optional(z.literal('clear')),
  user_message_uuid: z.optional(z.string()),
  timestamp: z.optional(z.string()),
  ...Ids,
}));
export type ConversationResetFrame = z.infer<typeof ConversationResetFrame>;

/** The full slash-command list after a change (reload): hosts replace their cached list (SDKCommandsChangedMessage). */
export const SystemCommandsChangedFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('commands_changed'),
  commands: z.array(
    z.strictObject({ name: z.string(), description: z.string(), argumentHint: z.string(), aliases: z.optional(z.array(z.string())), builtin: z.optional(z.boolean()) }),
  ),
  ...Ids,
}));
export type SystemCommandsChangedFrame = z.infer<typeof SystemCommandsChangedFrame>;
