// What loads only when a session has MCP servers: the connection code and @modelcontextprotocol/sdk behind it.
// Built as its own bundle (dist/agentd-mcp.js) and required on demand (scripts/build.mjs).
export { connectServer } from './client.js';
export { resourceTools } from './resource-tools.js';
export { beginOAuth } from './oauth-flow.js';
export { revokeGrant } from './oauth-revoke.js';
export { serveTools } from './serve.js';
