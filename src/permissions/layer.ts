// The permission layer's entry point: builds the PermissionGate the executor calls.
import type { ControlClient } from '../control/outbound.js';
import { type PermissionGate, passThroughPermissions } from '../executor/pipeline.js';
import type { Logger } from '../log/logger.js';
import type { SessionSettings } from '../session/config.js';
import type { PermissionModeName } from './modes.js';

export interface PermissionLayer extends PermissionGate {
  setMode(mode: PermissionModeName): void;
}

export interface PermissionLayerDeps {
  settings: SessionSettings;
  options: unknown;
  client: ControlClient;
  logger: Logger;
}

export function createPermissionLayer(d: PermissionLayerDeps): PermissionLayer {
  return {
    check: (req, signal) => passThroughPermissions.check(req, signal),
    setMode: (mode) => {
      d.settings.permissionMode = mode;
    },
  };
}
