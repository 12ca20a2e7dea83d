// Where OAuth grants for remote MCP servers are kept: one JSON file, `<config dir>/agentd/mcp-oauth.json`, mode
// 0600 in a 0700 directory, written atomically (a temporary file renamed over it). Claude Code keeps the same
// things in its secure storage (the keychain, or ~/.claude/.credentials.json) under `mcpOAuth`; agentd does not
// write Claude Code's credentials file, so a grant is obtained once per tool. Entries are keyed as Claude Code
// keys them: the server's name and a hash of its type, URL and headers, so a changed URL or header set never
// reuses another server's tokens. Nothing here is ever logged.
import { createRequire } from 'node:module';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as z from 'zod/mini';

// node:crypto is required on first use: this module is in the start-up bundle, and crypto costs ~3 ms to load
// (test/process/startup-modules.test.ts).
const lazyRequire = createRequire(import.meta.url);
const crypto = (): typeof import('node:crypto') => lazyRequire('node:crypto') as typeof import('node:crypto');

const Entry = z.lazy(() => z.looseObject({
  serverName: z.string(),
  serverUrl: z.string(),
  /** The OAuth client (dynamic registration's answer, with the `issuer` it is bound to). */
  clientInformation: z.optional(z.record(z.string(), z.unknown())),
  /** The redirect URI that client was registered with: a different one registers again. */
  redirectUri: z.optional(z.string()),
  tokens: z.optional(z.record(z.string(), z.unknown())),
  /** When `tokens` were saved (ms since the epoch), so `expires_in` can be read as an instant. */
  tokensSavedAt: z.optional(z.number()),
  /** Metadata discovery's result (RFC 9728 / RFC 8414), reused so a refresh needs no discovery. */
  discovery: z.optional(z.record(z.string(), z.unknown())),
}));
export type McpOAuthEntry = z.infer<typeof Entry>;

const File = z.lazy(() => z.looseObject({ version: z.literal(1), servers: z.record(z.string(), Entry) }));

export function oauthStorePath(configDir: string): string {
  return join(configDir, 'agentd', 'mcp-oauth.json');
}

/** Claude Code's key for a remote server's grant: `name|` + the first 16 hex digits of sha256({type,url,headers}). */
export function oauthKey(name: string, config: { type: string; url: string; headers?: Record<string, string> | undefined }): string {
  const hash = crypto()
    .createHash('sha256')
    .update(JSON.stringify({ type: config.type, url: config.url, headers: config.headers ?? {} }))
    .digest('hex')
    .slice(0, 16);
  return `${name}|${hash}`;
}

/**
 * The config's `oauth` block, read leniently (Claude Code's `clientId`, `callbackPort` and `authServerMetadataUrl`;
 * the last is kept as given: an address that is not https:// is refused where it would be fetched, as Claude Code
 * refuses it). `scopes` is read strictly, by oauthScopes.
 */
export function oauthSettings(config: Readonly<Record<string, unknown>>): { clientId?: string; callbackPort?: number; authServerMetadataUrl?: string } {
  const o: unknown = config['oauth'];
  if (typeof o !== 'object' || o === null) return {};
  const clientId = (o as Record<string, unknown>)['clientId'];
  const port = (o as Record<string, unknown>)['callbackPort'];
  const metadataUrl = (o as Record<string, unknown>)['authServerMetadataUrl'];
  return {
    ...(typeof clientId === 'string' && clientId ? { clientId } : {}),
    ...(typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536 ? { callbackPort: port } : {}),
    ...(typeof metadataUrl === 'string' && metadataUrl ? { authServerMetadataUrl: metadataUrl } : {}),
  };
}

/**
 * The config's `oauth.scopes` (Claude Code's key: a non-empty, space-separated string): what a sign-in asks for in
 * place of what the server advertises, so a narrower grant the user chose is never widened. Read strictly: a value
 * of another shape is refused (the sign-in does not start), never dropped for the server's wider default.
 */
export function oauthScopes(config: Readonly<Record<string, unknown>>): { ok: true; scopes: string | undefined } | { ok: false; message: string } {
  const o: unknown = config['oauth'];
  const scopes = typeof o === 'object' && o !== null ? (o as Record<string, unknown>)['scopes'] : undefined;
  if (scopes === undefined) return { ok: true, scopes: undefined };
  if (typeof scopes === 'string' && scopes.trim()) return { ok: true, scopes: scopes.trim() };
  return { ok: false, message: `oauth.scopes must be a non-empty string of space-separated scopes (got ${JSON.stringify(scopes)})` };
}

export class McpOAuthStore {
  constructor(private readonly path: string) {}

  get(key: string): McpOAuthEntry | undefined {
    return this.read()[key];
  }

  /** Replaces the entry with what `change` returns (undefined: removes it). Read-modify-write of the whole file. */
  update(key: string, change: (old: McpOAuthEntry | undefined) => McpOAuthEntry | undefined): void {
    const all = this.read();
    const next = change(all[key]);
    if (next === undefined) delete all[key];
    else all[key] = next;
    this.write(all);
  }

  delete(key: string): boolean {
    const all = this.read();
    if (!(key in all)) return false;
    delete all[key];
    this.write(all);
    return true;
  }

  private read(): Record<string, McpOAuthEntry> {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return {};
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return {};
    }
    // A file of another shape is treated as empty (and replaced on the next save): a grant is re-obtained, never guessed.
    const parsed = File.safeParse(raw);
    return parsed.success ? { ...parsed.data.servers } : {};
  }

  private write(servers: Record<string, McpOAuthEntry>): void {
    const dir = dirname(this.path);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (Object.keys(servers).length === 0) {
      rmSync(this.path, { force: true });
      return;
    }
    const tmp = `${this.path}.${crypto().randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ version: 1, servers }, null, 2)}\n`, { mode: 0o600 });
    // The mode given at creation is masked by the umask; chmod makes it exact before the file becomes visible.
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.path);
  }
}
