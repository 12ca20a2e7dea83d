// What the daemon evaluates of the protocol at run time: the inbound parsers and the few constants it uses.
// src/ takes values only from here, and types from index.ts (`import type`, erased by the build): the outbound
// frame and response schemas in index.ts, messages.ts and control-responses.ts are for the tests, the JSON Schema
// and the types, and building them costs ~10 ms of CPU at every start (BENCHMARKS.md, start-up). The arch test
// (test/arch/dependencies.test.ts) keeps this module's imports away from them.

/** The protocol level agentd speaks: the Claude Code CLI version whose stream-json protocol it implements. */
export const PROTOCOL_LEVEL = '2.1.330';

export { ASSISTANT_MESSAGE_ERRORS } from './assistant-errors.js';
export { CONTROL_REQUEST_SCHEMAS, ElicitationResult, SUPPORTED_CONTROL_SUBTYPES } from './control.js';
export { classifyInbound, parseControlPayload } from './inbound.js';
export { PermissionResult } from './permissions.js';
