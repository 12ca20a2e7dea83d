// The hook lifecycle frames (system/hook_started, hook_progress, hook_response), as Claude Code sends them.
import * as z from 'zod/mini';
import { Ids } from './ids.js';

const HookFrameBase = {
  type: z.literal('system'),
  hook_id: z.string(),
  hook_name: z.string(),
  hook_event: z.string(),
  ...Ids,
};
export const SystemHookStartedFrame = z.lazy(() => z.strictObject({ ...HookFrameBase, subtype: z.literal('hook_started') }));
export const SystemHookProgressFrame = z.lazy(() => z.strictObject({
  ...HookFrameBase,
  subtype: z.literal('hook_progress'),
  stdout: z.string(),
  stderr: z.string(),
  output: z.string(),
}));
export const SystemHookResponseFrame = z.lazy(() => z.strictObject({
  ...HookFrameBase,
  subtype: z.literal('hook_response'),
  output: z.string(),
  stdout: z.string(),
  stderr: z.string(),
  exit_code: z.optional(z.number()),
  outcome: z.enum(['success', 'error', 'cancelled']),
}));
