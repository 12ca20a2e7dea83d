// Write: create or overwrite a file. An existing file must have been Read in this session and be unchanged on
// disk since (checked in validateInput, and again on the verified descriptor right before writing, so a change
// in between is caught too). The file is replaced, never written through a link (fs-write.ts).
import * as z from 'zod/mini';
import { NotRegularFileError, fsErrorCode } from '../fs-safe.js';
import { writeFileVerified } from '../fs-write.js';
import type { Tool, ToolOutcome } from '../tool.js';
import { FILE_WRITER, STATE_CURRENT, assertFresh, rawText, realPathOf, requireAbsolute, staleness, statIfExists } from './file-common.js';
import { type PatchHunk, structuredPatch } from './line-diff.js';

/** Previous contents above this size are not diffed or echoed back (Claude Code: originalFile null). */
export const WRITE_MAX_DIFF_BYTES = 4 * 1024 * 1024;

export const WriteInput = z.lazy(() => z.strictObject({
  file_path: z.string().check(z.describe('The absolute path to the file to write (must be absolute, not relative)')),
  content: z.string().check(z.describe('The content to write to the file')),
}));
export type WriteInput = z.infer<typeof WriteInput>;

export interface WriteOutput {
  type: 'create' | 'update';
  filePath: string;
  content: string;
  structuredPatch: PatchHunk[];
  originalFile: string | null;
  userModified: boolean;
}

const DESCRIPTION = `Writes a file to the local filesystem, overwriting it if it exists.

- file_path must be absolute. Missing parent directories are created.
- Overwriting an existing file you have not Read in this conversation fails, as does overwriting a file that changed on disk since you read it: Read it (again) first.
- Prefer Edit for partial changes to existing files; use Write for new files or complete rewrites.`;

export function createWriteTool(): Tool<WriteInput, WriteOutput> {
  return {
    name: 'Write',
    description: DESCRIPTION,
    inputSchema: WriteInput,
    ...FILE_WRITER,
    permissionSubject: (input) => ({ kind: 'write', path: input.file_path }),
    async validateInput(input, { shared, env }) {
      const abs = requireAbsolute('file_path', input.file_path, shared.cwd);
      if (!abs.ok) return abs;
      const st = await statIfExists(input.file_path);
      if (!st) return { ok: true };
      if (st.isDirectory()) return { ok: false, message: `${input.file_path} is a directory; Write needs a file path.` };
      const stale = staleness(env.fileState, await realPathOf(input.file_path), st);
      return stale ? { ok: false, message: stale } : { ok: true };
    },
    async call(input, ctx): Promise<ToolOutcome<WriteOutput>> {
      const path = input.file_path;
      let result;
      try {
        result = await writeFileVerified(path, input.content, {
          pinnedRealPath: ctx.pinnedRealPath,
          createParents: true,
          signal: ctx.signal,
          beforeWrite: (existing) => {
            if (existing) assertFresh(ctx.env.fileState, existing.realPath, existing.stat);
          },
        });
      } catch (e) {
        const code = fsErrorCode(e);
        if (e instanceof NotRegularFileError || code === 'EISDIR') throw new Error(`${path} is not a regular file; Write needs a file path.`);
        if (code === 'EACCES' || code === 'EPERM') throw new Error(`Permission denied writing ${path}.`);
        if (code === 'ENOTDIR') throw new Error(`Cannot create ${path}: a component of its parent path is a file, not a directory.`);
        throw e;
      }
      ctx.env.fileState.set(result.realPath, { mtimeMs: result.stat.mtimeMs, size: result.stat.size, partial: false });
      if (result.created || !result.previous) {
        return {
          data: { type: 'create', filePath: path, content: input.content, structuredPatch: [], originalFile: null, userModified: false },
          content: `File created successfully at: ${path} ${STATE_CURRENT}`,
        };
      }
      const diffable = result.previous.length <= WRITE_MAX_DIFF_BYTES;
      const original = diffable ? rawText(result.previous) : null;
      return {
        data: {
          type: 'update',
          filePath: path,
          content: input.content,
          structuredPatch: original === null ? [] : structuredPatch(original, input.content),
          originalFile: original,
          userModified: false,
        },
        content: `The file ${path} has been updated successfully ${STATE_CURRENT}`,
      };
    },
  };
}
