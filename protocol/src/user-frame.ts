// The user frame a host writes (inbound), parsed by the daemon at run time (runtime.ts).
import * as z from 'zod/mini';

export const InboundContentBlock = z.lazy(() => z.looseObject({ type: z.string() }));

export const InboundUserFrame = z.lazy(() => z.looseObject({
  type: z.literal('user'),
  message: z.looseObject({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(InboundContentBlock)]),
  }),
  parent_tool_use_id: z.optional(z.nullable(z.string())),
  // Ignored, as by Claude Code: the daemon owns the session id.
  session_id: z.optional(z.nullable(z.string())),
  uuid: z.optional(z.nullable(z.string())),
  priority: z.optional(z.nullable(z.enum(['now', 'next', 'later']))),
  shouldQuery: z.optional(z.nullable(z.boolean())),
  isSynthetic: z.optional(z.nullable(z.boolean())),
  /** The client composed the text: no `@file` mention expansion (and no slash-command dispatch). */
  client_composed: z.optional(z.nullable(z.boolean())),
}));
export type InboundUserFrame = z.infer<typeof InboundUserFrame>;
