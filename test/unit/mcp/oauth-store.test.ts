// The MCP OAuth grant file: Claude Code's key (name + hash of type, URL and headers), mode 0600 in a 0700
// directory, a file of another shape read as empty, the file removed with its last entry.
import { mkdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpOAuthStore, oauthKey, oauthSettings, oauthStorePath } from '../../../src/mcp/oauth-store.js';
import { tempDir } from '../../support/daemon.js';

describe('MCP OAuth store', () => {
  it('keys by name and a hash of type, URL and headers (a changed URL or header is another grant)', () => {
    const a = oauthKey('web', { type: 'http', url: 'https://x.example/mcp' });
    expect(a).toMatch(/^web\|[0-9a-f]{16}$/);
    expect(oauthKey('web', { type: 'http', url: 'https://x.example/mcp', headers: {} })).toBe(a);
    expect(oauthKey('web', { type: 'http', url: 'https://y.example/mcp' })).not.toBe(a);
    expect(oauthKey('web', { type: 'sse', url: 'https://x.example/mcp' })).not.toBe(a);
    expect(oauthKey('web', { type: 'http', url: 'https://x.example/mcp', headers: { 'X-Team': '1' } })).not.toBe(a);
  });

  it('writes 0600 in a 0700 directory, reads back, removes the file with the last entry', () => {
    const path = oauthStorePath(join(tempDir(), 'cfg'));
    const store = new McpOAuthStore(path);
    expect(store.get('k')).toBeUndefined();
    store.update('k', () => ({ serverName: 'web', serverUrl: 'https://x.example/mcp', tokens: { access_token: 'a', token_type: 'bearer' }, tokensSavedAt: 1 }));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    expect(store.get('k')).toEqual({ serverName: 'web', serverUrl: 'https://x.example/mcp', tokens: { access_token: 'a', token_type: 'bearer' }, tokensSavedAt: 1 });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ version: 1, servers: { k: { serverName: 'web' } } });
    expect(store.delete('k')).toBe(true);
    expect(store.delete('k')).toBe(false);
    expect(existsSync(path)).toBe(false);
  });

  it('a file of another shape is empty (a grant is obtained again, never guessed), and replaced on the next save', () => {
    const dir = join(tempDir(), 'cfg', 'agentd');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'mcp-oauth.json');
    writeFileSync(path, '{"servers": [1, 2]}');
    const store = new McpOAuthStore(path);
    expect(store.get('servers')).toBeUndefined();
    store.update('k', () => ({ serverName: 's', serverUrl: 'u' }));
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ version: 1, servers: { k: { serverName: 's', serverUrl: 'u' } } });
  });

  it("reads the config's oauth block leniently (clientId, callbackPort)", () => {
    expect(oauthSettings({ oauth: { clientId: 'abc', callbackPort: 8123 } })).toEqual({ clientId: 'abc', callbackPort: 8123 });
    expect(oauthSettings({ oauth: { clientId: '', callbackPort: 70000 } })).toEqual({});
    expect(oauthSettings({ oauth: 'x' })).toEqual({});
    expect(oauthSettings({})).toEqual({});
  });
});
