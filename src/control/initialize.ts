// The initialize reply. `models` is never empty (claude-agent-acp uses models[0]); `default` resolves to the
// launch model, and any other id is accepted by set_model because the endpoint decides what exists.
import type { InitializeResponse } from '../../protocol/src/index.js';
import { PROTOCOL_LEVEL } from '../../protocol/src/runtime.js';
import type { PermissionModeName } from '../permissions/modes.js';
import { CAPABILITIES } from './projector.js';

export interface InitializeInfo {
  defaultModel: string;
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

const KNOWN_MODELS: Array<{ value: string; displayName: string; description: string }> = [
  { value: 'claude-opus-5-5', displayName: 'Opus 5.5', description: 'Opus 5.5 · $4/$20 per Mtok' },
  { value: 'claude-sonnet-4-5', displayName: 'Sonnet 4.5', description: 'Sonnet 4.5 · $3/$15 per Mtok' },
  { value: 'claude-haiku-4-5', displayName: 'Haiku 4.5', description: 'Haiku 4.5 · $1/$5 per Mtok' },
];

export function buildInitializeResponse(i: InitializeInfo): InitializeResponse {
  const models = [
    {
      value: 'default',
      resolvedModel: i.defaultModel,
      displayName: 'Default (recommended)',
      description: `Use the default model (currently ${i.defaultModel})`,
    },
    ...KNOWN_MODELS.map((m) => ({ ...m, resolvedModel: m.value })),
  ];
  if (!models.some((m) => m.value === i.currentModel)) {
    models.push({ value: i.currentModel, resolvedModel: i.currentModel, displayName: i.currentModel, description: 'Launch model' });
  }
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
