// The initialize reply. `models` is never empty (claude-agent-acp uses models[0]): model/model-rows.ts lists them
// as Claude Code does (`default`, then the aliases, filtered by availableModels).
import type { InitializeResponse } from '../../protocol/src/index.js';
import { PROTOCOL_LEVEL } from '../../protocol/src/runtime.js';
import type { ModelRow } from '../model/model-rows.js';
import type { PermissionModeName } from '../permissions/modes.js';
import { CAPABILITIES } from './projector.js';

export interface InitializeInfo {
  /** model/model-rows.ts. */
  models: ModelRow[];
  currentModel: string;
  permissionMode: PermissionModeName;
  /** Where the credentials come from (names only; cli/credentials.ts). */
  account: { apiProvider: string; tokenSource?: string; apiKeySource?: string };
  hooksApplied: boolean;
  agentdVersion: string;
  busy: boolean;
  outputStyle?: string;
  availableOutputStyles?: string[];
  /** Slash commands (custom, skills, built-ins) and subagents (src/project, src/commands). */
  commands: InitializeResponse['commands'];
  agents: InitializeResponse['agents'];
}

export function buildInitializeResponse(i: InitializeInfo): InitializeResponse {
  const models = i.models;
  return {
    commands: i.commands,
    agents: i.agents,
    output_style: i.outputStyle ?? 'default',
    available_output_styles: i.availableOutputStyles ?? ['default'],
    models,
    // Key order as before (the wire-stability golden compares bytes).
    account: { ...(i.account.apiKeySource !== undefined ? { apiKeySource: i.account.apiKeySource } : {}), ...(i.account.tokenSource !== undefined ? { tokenSource: i.account.tokenSource } : {}), apiProvider: i.account.apiProvider },
    hooks_applied: i.hooksApplied,
    hook_on_failure_supported: true,
    claude_code_version: PROTOCOL_LEVEL,
    pid: process.pid,
    current_model: i.currentModel,
    current_permission_mode: i.permissionMode,
    session_state: i.busy ? 'running' : 'idle',
    capabilities: CAPABILITIES,
    agentd_version: i.agentdVersion,
  };
}
