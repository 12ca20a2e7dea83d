// Scenarios embedded in agentd, usable as `--scenario builtin:<name>`. `demo` is the default of the scripted
// provider: it exercises text, thinking and (when the tools are offered) parallel tool calls.
import type { Scenario } from './scenario.js';

export const BUILTIN_SCENARIOS: Readonly<Record<string, Scenario>> = {
  demo: {
    description: 'agentd demo: looks at the workspace with tools, then summarises.',
    rules: [
      {
        name: 'explore',
        when: { hasToolResults: false, hasTool: 'Glob', lastUserText: { regex: 'workspace|files|project', flags: 'i' } },
        reply: {
          content: [
            { type: 'thinking', thinking: 'The user wants to know about the workspace. I will list the files and read the notes in parallel, and count lines with the shell.' },
            { type: 'text', text: "I'll look at the workspace: list the files, read the notes, and count lines." },
            { type: 'tool_use', name: 'Glob', input: { pattern: '**/*' } },
            { type: 'tool_use', name: 'Read', input: { file_path: '{{cwd}}/notes.md' } },
            { type: 'tool_use', name: 'Bash', input: { command: 'wc -l *.md src/*.ts', description: 'Count lines in each file' } },
          ],
          delays: { chunkMs: 2 },
          chunkSize: 12,
        },
      },
      {
        name: 'summarise',
        when: { hasToolResults: true },
        reply: {
          content: [{ type: 'text', text: 'Here is what I found:\n\n{{lastToolResult}}\n\nThat is the whole workspace.' }],
          chunkSize: 24,
        },
      },
      {
        name: 'chat',
        reply: {
          content: [
            { type: 'thinking', thinking: 'A plain question: answer it directly.' },
            { type: 'text', text: "Hello from agentd's scripted model. You said: {{lastUserText}}" },
          ],
          chunkSize: 8,
        },
      },
    ],
  },
  echo: {
    description: 'Answers every request with the last user text.',
    rules: [{ reply: { content: [{ type: 'text', text: '{{lastUserText}}' }] } }],
  },
};

export const DEFAULT_SCENARIO = 'demo';
