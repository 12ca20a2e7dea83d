// TodoWrite: the model's task list for the session. The list lives in this tool instance's closure, so each
// session (which builds its own tools) has its own list and nothing is process-wide.
import * as z from 'zod/mini';
import type { Tool } from '../tool.js';

const Todo = z.lazy(() => z.strictObject({
  content: z.string().check(z.minLength(1), z.describe('What needs to be done, in the imperative ("Run the tests")')),
  status: z.enum(['pending', 'in_progress', 'completed']),
  activeForm: z.string().check(z.minLength(1), z.describe('The same task in present continuous form, shown while it runs ("Running the tests")')),
}));
export type Todo = z.infer<typeof Todo>;

export const TodoWriteInput = z.lazy(() => z.strictObject({
  todos: z.array(Todo).check(z.describe('The updated todo list')),
}));
export type TodoWriteInput = z.infer<typeof TodoWriteInput>;

export interface TodoWriteOutput {
  oldTodos: Todo[];
  newTodos: Todo[];
}

const DESCRIPTION = `Creates and updates a structured task list for the current session: use it to plan multi-step work and show progress.

- Send the whole list each time; it replaces the previous one.
- Each item has content (imperative: "Fix the parser"), activeForm (continuous: "Fixing the parser") and status: pending, in_progress or completed.
- Keep exactly one item in_progress while working, and mark items completed as soon as they are done.
- Skip it for single, trivial tasks.`;

const RESULT_TEXT =
  'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable';

export interface TodoWriteTool extends Tool<TodoWriteInput, TodoWriteOutput> {
  /** The current list (empty once every item was completed, as in Claude Code). */
  current(): Todo[];
}

export function createTodoWriteTool(): TodoWriteTool {
  let todos: Todo[] = [];
  return {
    name: 'TodoWrite',
    description: DESCRIPTION,
    inputSchema: TodoWriteInput,
    isConcurrencySafe: () => false,
    isReadOnly: () => false,
    interruptBehavior: 'block',
    permissionSubject: () => ({ kind: 'session' }),
    current: () => todos.map((t) => ({ ...t })),
    async call(input) {
      const oldTodos = todos;
      const newTodos = input.todos.map((t) => ({ ...t }));
      // A fully completed list is cleared, so the next plan starts fresh.
      todos = newTodos.every((t) => t.status === 'completed') ? [] : newTodos;
      return { data: { oldTodos, newTodos }, content: RESULT_TEXT };
    },
  };
}
