// Edit: exact string replacement in a file the session has Read. The checks run twice: in validateInput (so
// the model gets a precondition error before any permission prompt) and again inside the verified
// read-modify-write, against the bytes actually about to be replaced.
import * as z from 'zod/mini';
import { NotRegularFileError, fsErrorCode, readFileVerified } from '../fs-safe.js';
import { updateFileVerified, writeFileVerified } from '../fs-write.js';
import type { Tool, ToolOutcome } from '../tool.js';
import {
  FILE_WRITER,
  STATE_CURRENT,
  assertFresh,
  countOccurrences,
  decodeText,
  encodeText,
  fileDoesNotExist,
  rawText,
  realPathOf,
  requireAbsolute,
  staleness,
  statIfExists,
} from './file-common.js';
import { type PatchHunk, structuredPatch } from './line-diff.js';

export const EditInput = z.lazy(() => z.strictObject({
  file_path: z.string().check(z.describe('The absolute path to the file to modify')),
  old_string: z.string().check(z.describe('The text to replace')),
  new_string: z.string().check(z.describe('The text to replace it with (must be different from old_string)')),
  replace_all: z.optional(z._default(z.boolean(), false).check(z.describe('Replace all occurrences of old_string (default false)'))),
}));
export type EditInput = z.infer<typeof EditInput>;

export interface EditOutput {
  filePath: string;
  oldString: string;
  newString: string;
  originalFile: string | null;
  structuredPatch: PatchHunk[];
  userModified: boolean;
  replaceAll: boolean;
}

const DESCRIPTION = `Performs exact string replacement in a file.

- You must Read the file in this conversation before editing it, or the call fails.
- old_string must match the file exactly, including indentation, and be unique in the file unless replace_all is true; add surrounding lines to make it unique. Do not include the line-number prefix (number + tab) that Read shows.
- replace_all: true replaces every occurrence (useful for renaming).
- An empty old_string on a file that does not exist creates it with new_string.`;

const MSG_EXISTS = 'Cannot create new file - file already exists.';
const MSG_SAME = 'No changes to make: old_string and new_string are exactly the same.';

type Plan = { ok: true; text: string; count: number } | { ok: false; message: string };

/** Applies the edit to LF-normalised text, or says why it cannot be applied. Pure. */
export function planEdit(text: string, oldString: string, newString: string, replaceAll: boolean): Plan {
  if (oldString === newString) return { ok: false, message: MSG_SAME };
  if (oldString === '') {
    if (text.trim() !== '') return { ok: false, message: MSG_EXISTS };
    return { ok: true, text: newString, count: 1 };
  }
  const n = countOccurrences(text, oldString);
  if (n === 0) return { ok: false, message: `String to replace not found in file.\nString: ${oldString}` };
  if (n > 1 && !replaceAll) {
    return {
      ok: false,
      message: `Found ${n} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: ${oldString}`,
    };
  }
  // Deleting a whole line: take its newline too, as Claude Code does, so no blank line is left behind.
  let target = oldString;
  if (newString === '' && !oldString.endsWith('\n') && countOccurrences(text, `${oldString}\n`) === n) target = `${oldString}\n`;
  if (replaceAll) return { ok: true, text: text.split(target).join(newString), count: n };
  const at = text.indexOf(target);
  return { ok: true, text: text.slice(0, at) + newString + text.slice(at + target.length), count: 1 };
}

function mapFsError(e: unknown, path: string, cwd: string): never {
  const code = fsErrorCode(e);
  if (code === 'ENOENT') throw new Error(fileDoesNotExist(cwd));
  if (e instanceof NotRegularFileError || code === 'EISDIR') throw new Error(`${path} is not a regular file.`);
  if (code === 'EACCES' || code === 'EPERM') throw new Error(`Permission denied editing ${path}.`);
  throw e;
}

export function createEditTool(): Tool<EditInput, EditOutput> {
  return {
    name: 'Edit',
    description: DESCRIPTION,
    inputSchema: EditInput,
    ...FILE_WRITER,
    permissionSubject: (input) => ({ kind: 'write', path: input.file_path }),
    async validateInput(input, { shared, env }) {
      const abs = requireAbsolute('file_path', input.file_path, shared.cwd);
      if (!abs.ok) return abs;
      if (input.old_string === input.new_string) return { ok: false, message: MSG_SAME };
      const st = await statIfExists(input.file_path);
      if (!st) return input.old_string === '' ? { ok: true } : { ok: false, message: fileDoesNotExist(shared.cwd) };
      if (st.isDirectory()) return { ok: false, message: `${input.file_path} is a directory, not a file.` };
      if (input.file_path.toLowerCase().endsWith('.ipynb')) {
        return { ok: false, message: 'File is a Jupyter Notebook. Use the NotebookEdit tool to edit this file.' };
      }
      const realPath = await realPathOf(input.file_path);
      const stale = staleness(env.fileState, realPath, st);
      if (stale) return { ok: false, message: stale };
      const { data } = await readFileVerified(input.file_path);
      const plan = planEdit(decodeText(data).text, input.old_string, input.new_string, input.replace_all ?? false);
      return plan.ok ? { ok: true } : { ok: false, message: plan.message };
    },
    async call(input, ctx): Promise<ToolOutcome<EditOutput>> {
      const path = input.file_path;
      const replaceAll = input.replace_all ?? false;
      const base = { filePath: path, oldString: input.old_string, newString: input.new_string, userModified: false, replaceAll };
      const exists = (await statIfExists(path)) !== undefined;
      if (!exists && input.old_string === '') {
        // Creation: the file must still not exist (or be empty) when the verified descriptor is open.
        let created;
        try {
          created = await writeFileVerified(path, input.new_string, {
            pinnedRealPath: ctx.pinnedRealPath,
            createParents: true,
            signal: ctx.signal,
            beforeWrite: (existing) => {
              if (existing && rawText(existing.data).trim() !== '') throw new Error(MSG_EXISTS);
              if (existing) assertFresh(ctx.env.fileState, existing.realPath, existing.stat);
            },
          });
        } catch (e) {
          mapFsError(e, path, ctx.shared.cwd);
        }
        ctx.env.fileState.set(created.realPath, { mtimeMs: created.stat.mtimeMs, size: created.stat.size, partial: false });
        return {
          data: { ...base, originalFile: created.previous ? rawText(created.previous) : null, structuredPatch: structuredPatch('', input.new_string) },
          content: `File created successfully at: ${path} ${STATE_CURRENT}`,
        };
      }
      let before = '';
      let after = '';
      let count = 0;
      let result;
      try {
        result = await updateFileVerified(
          path,
          ({ data, stat, realPath }) => {
            assertFresh(ctx.env.fileState, realPath, stat);
            const decoded = decodeText(data);
            const plan = planEdit(decoded.text, input.old_string, input.new_string, replaceAll);
            if (!plan.ok) throw new Error(plan.message);
            before = decoded.text;
            after = plan.text;
            count = plan.count;
            return encodeText(plan.text, decoded);
          },
          { pinnedRealPath: ctx.pinnedRealPath, signal: ctx.signal },
        );
      } catch (e) {
        mapFsError(e, path, ctx.shared.cwd);
      }
      const prevSnap = ctx.env.fileState.get(result.realPath);
      ctx.env.fileState.set(result.realPath, { mtimeMs: result.stat.mtimeMs, size: result.stat.size, partial: prevSnap?.partial ?? false });
      const all = replaceAll && count > 1 ? `: all ${count} occurrences were replaced` : '';
      return {
        data: { ...base, originalFile: rawText(result.previous), structuredPatch: structuredPatch(before, after) },
        content: `The file ${path} has been updated successfully${all} ${STATE_CURRENT}`,
      };
    },
  };
}
