import type { TodoWriteOutput as SdkTodoWriteOutput } from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { type TodoWriteOutput, createTodoWriteTool } from '../../../src/tools/builtin/todo-write.js';
import { type Sandbox, ok, run, sandbox } from './support.js';

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

const TEXT =
  'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable';

const plan = [
  { content: 'Write the parser', status: 'in_progress', activeForm: 'Writing the parser' },
  { content: 'Test it', status: 'pending', activeForm: 'Testing it' },
] as const;

describe('TodoWrite', () => {
  it('returns the previous and the new list', async () => {
    const tool = createTodoWriteTool();
    expect(await ok<TodoWriteOutput>(tool, { todos: plan }, sb)).toEqual({ data: { oldTodos: [], newTodos: plan }, content: TEXT });
    const next = [
      { ...plan[0], status: 'completed' },
      { ...plan[1], status: 'in_progress' },
    ];
    expect(await ok<TodoWriteOutput>(tool, { todos: next }, sb)).toEqual({ data: { oldTodos: plan, newTodos: next }, content: TEXT });
    expect(tool.current()).toEqual(next);
  });

  it('clears the list once everything is completed', async () => {
    const tool = createTodoWriteTool();
    const done = plan.map((t) => ({ ...t, status: 'completed' }));
    await ok(tool, { todos: done }, sb);
    expect(tool.current()).toEqual([]);
    expect((await ok<TodoWriteOutput>(tool, { todos: plan }, sb)).data.oldTodos).toEqual([]);
  });

  it('keeps one list per tool instance (per session)', async () => {
    const a = createTodoWriteTool();
    const b = createTodoWriteTool();
    await ok(a, { todos: plan }, sb);
    expect({ a: a.current(), b: b.current() }).toEqual({ a: plan, b: [] });
  });

  it('validates the items', async () => {
    const tool = createTodoWriteTool();
    expect((await run(tool, { todos: [{ content: 'x', status: 'doing', activeForm: 'x' }] }, sb)).kind).toBe('invalid');
    expect((await run(tool, { todos: [{ content: '', status: 'pending', activeForm: 'x' }] }, sb)).kind).toBe('invalid');
    expect((await run(tool, { todos: [{ content: 'x', status: 'pending' }] }, sb)).kind).toBe('invalid');
  });

  it('is exclusive and needs no permission', () => {
    const tool = createTodoWriteTool();
    expect({ safe: tool.isConcurrencySafe({ todos: [] }), subject: tool.permissionSubject?.({ todos: [] }, sb.shared) }).toEqual({
      safe: false,
      subject: { kind: 'session' },
    });
    expectTypeOf<TodoWriteOutput>().toExtend<SdkTodoWriteOutput>();
  });
});
