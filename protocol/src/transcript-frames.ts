// agentd's frame about a resumed transcript whose parent links had to be repaired (store/reader.ts chainTo).
import * as z from 'zod/mini';
import { Ids } from './ids.js';

/**
 * agentd: a resumed transcript had entries whose parent link was broken (a parent not in the file, or a cycle).
 * Each was attached to the nearest earlier entry that ends a branch, so the earlier turns stay in the
 * conversation (Claude Code keeps them without a word); `links` says which entries and where they went.
 * `linked_to_uuid` null: nothing earlier was left, the conversation starts at that entry.
 */
export const SystemTranscriptRelinkedFrame = z.lazy(() => z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('agentd_transcript_relinked'),
  transcript_path: z.string(),
  message: z.string(),
  links: z.array(
    z.strictObject({
      /** 1-based line of the entry in the transcript file. */
      line: z.number(),
      entry_uuid: z.string(),
      /** The parent the entry names. */
      parent_uuid: z.string(),
      problem: z.enum(['parent_missing', 'cycle']),
      linked_to_uuid: z.nullable(z.string()),
    }),
  ),
  ...Ids,
}));
export type SystemTranscriptRelinkedFrame = z.infer<typeof SystemTranscriptRelinkedFrame>;
