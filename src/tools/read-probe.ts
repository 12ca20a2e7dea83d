// The Read tool as the permission engine sees it, without the tool: a file agentd reads on the model's behalf (a
// CLAUDE.md or command `@import`) is judged by the very decision a Read call of that path gets (permissions/layer.ts
// readAccess). Never called: it only names the tool and its subject.
import * as z from 'zod/mini';
import type { Tool } from './tool.js';

const Input = z.lazy(() => z.object({ file_path: z.string() }));

export const READ_PROBE: Tool<z.infer<typeof Input>, never> = {
  name: 'Read',
  description: 'Reads a file (permission probe; never called).',
  inputSchema: Input,
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  interruptBehavior: 'cancel',
  call: () => Promise.reject(new Error('the Read permission probe is never called')),
  permissionSubject: (input) => ({ kind: 'read', path: input.file_path }),
};
