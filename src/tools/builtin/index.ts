// The built-in tools, in the order the model sees them. Built once per session: TodoWrite keeps its list and
// Grep its ripgrep lookup in the instance.
import type { AnyTool } from '../tool.js';
import { createEditTool } from './edit.js';
import { createGlobTool } from './glob.js';
import { createGrepTool } from './grep.js';
import { createNotebookEditTool } from './notebook-edit.js';
import { createReadTool } from './read.js';
import { createTodoWriteTool } from './todo-write.js';
import { createWebFetchTool } from './web-fetch.js';
import { createWriteTool } from './write.js';

export function builtinTools(): AnyTool[] {
  return [
    createGlobTool(),
    createGrepTool(),
    createReadTool(),
    createEditTool(),
    createWriteTool(),
    createNotebookEditTool(),
    createWebFetchTool(),
    createTodoWriteTool(),
  ] as AnyTool[];
}
