// hook_callback: the HookCallbackPort over the control channel. Answers are returned unvalidated; the hooks
// layer validates them (garbage from a permission-deciding hook blocks the call).
import type { HookCallbackPort } from '../hooks/runner.js';
import type { ControlClient } from './outbound.js';

export function createHookCallbackPort(client: ControlClient): HookCallbackPort {
  return {
    call: (callbackId, input, toolUseId, signal, timeoutMs) =>
      client.request(
        { subtype: 'hook_callback', callback_id: callbackId, input, ...(toolUseId !== undefined ? { tool_use_id: toolUseId } : {}) },
        { signal, timeoutMs },
      ),
  };
}
