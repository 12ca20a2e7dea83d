// Who answers a permission "ask": an MCP tool named by --permission-prompt-tool mcp__server__tool (Claude Code's
// contract), the host through can_use_tool (--permission-prompt-tool stdio), or nobody (the ask is denied).
import type { Logger } from '../log/logger.js';
import type { PermissionPrompter } from '../permissions/layer.js';
import type { CliOptions } from './options.js';

export function choosePrompter(
  opts: Pick<CliOptions, 'permissionPromptTool' | 'permissionPrompts'>,
  logger: Logger,
  make: { mcpTool: (toolName: string) => PermissionPrompter; host: () => PermissionPrompter },
): PermissionPrompter | undefined {
  const tool = opts.permissionPromptTool;
  if (tool === undefined || opts.permissionPrompts === 'none') return undefined;
  if (tool === 'stdio') return make.host();
  if (tool.startsWith('mcp__')) return make.mcpTool(tool);
  logger.warn({ tool }, 'unknown permission prompt tool; permission requests that need an answer are denied');
  return undefined;
}
