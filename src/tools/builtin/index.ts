// The built-in tools, in the order the model sees them. Built once per session: TodoWrite keeps its list and
// Grep its ripgrep lookup in the instance.
import type { AnyTool } from '../tool.js';
import { createTaskStopTool } from './background.js';

import { createBashTool } from './bash.js';
import { createEditTool } from './edit.js';
import { createGlobTool } from './glob.js';
import { createGrepTool } from './grep.js';
import { createNotebookEditTool } from './notebook-edit.js';
import { createReadTool } from './read.js';
import { createTodoWriteTool } from './todo-write.js';
import { createWebFetchTool } from './web-fetch.js';
import { createWebSearchTool } from './web-search.js';
import { createWriteTool } from './write.js';

export interface BuiltinOptions {
  /** The session's project directory: Bash's `cd` may move within it (and the added directories). */
  projectDir: string;
  /** USE_BUILTIN_RIPGREP is falsy: Grep runs an rg on PATH before the one agentd ships. */
  preferSystemRipgrep?: boolean;
}

export function builtinTools(opts: BuiltinOptions): AnyTool[] {
  return [
    createBashTool({ projectDir: opts.projectDir }),
    createGlobTool(),
    createGrepTool({ preferSystemRipgrep: opts.preferSystemRipgrep === true }),
    createReadTool(),
    createEditTool(),
    createWriteTool(),
    createNotebookEditTool(),
    createWebFetchTool(),
    createTodoWriteTool(),
    createWebSearchTool(),
    createTaskStopTool(),
  ] as AnyTool[];
}
