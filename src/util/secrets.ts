// The one redaction of agentd's known secret values (API keys, tokens): the last line of defence behind keeping
// them out of tools' reach. Applied where text leaves the process: log lines, tool results (what the model sees),
// transcript lines and stdout frames. Values under 8 characters are not treated as secrets (false positives).

/** Variables that carry agentd's own credentials; never handed to tools unless the user says so. */
export const SECRET_ENV_NAMES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'ANTHROPIC_FOUNDRY_API_KEY',
  'AWS_BEARER_TOKEN_BEDROCK',
  'CLAUDE_CODE_SESSION_ACCESS_TOKEN',
] as const;

/**
 * Cloud and client credentials beyond agentd's own: tools get them (the user's aws or gcloud), but a repository's
 * configuration never does (a project MCP server's `${VAR}`, src/mcp/config.ts).
 */
export const CLOUD_CREDENTIAL_NAMES = [
  'ANTHROPIC_FOUNDRY_AUTH_TOKEN',
  'ANTHROPIC_AWS_API_KEY',
  'ANTHROPIC_CUSTOM_HEADERS',
  'CLAUDE_CODE_OAUTH_REFRESH_TOKEN',
  'CLAUDE_CODE_CLIENT_KEY_PASSPHRASE',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'AZURE_CLIENT_SECRET',
  'AZURE_CLIENT_CERTIFICATE_PASSWORD',
] as const;

/** The names AGENTD_SECRET_ENV (comma-separated) adds to SECRET_ENV_NAMES. */
export function extraSecretNames(env: Readonly<Record<string, string | undefined>>): string[] {
  return (env['AGENTD_SECRET_ENV'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

export const REDACTED = '[REDACTED]';

/** Replaces each secret (8+ chars) in `s`, raw and in its JSON-escaped form. */
export function scrubSecrets(s: string, secrets: readonly string[]): string {
  let out = s;
  for (const secret of secrets) {
    if (secret.length < 8) continue;
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    // Also the JSON-escaped form, in case a secret holds characters JSON escapes.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && out.includes(escaped)) out = out.split(escaped).join(REDACTED);
  }
  return out;
}

export type Redact = (s: string) => string;

const identity: Redact = (s) => s;

/** A redaction function for these secrets; the identity (no cost at all) when there are none. */
export function createRedactor(secrets: readonly string[]): Redact {
  const raw = secrets.filter((s) => s.length >= 8);
  // Each secret as written and JSON-escaped, computed once: the check runs on every outgoing line.
  const needles = [...new Set([...raw, ...raw.map((x) => JSON.stringify(x).slice(1, -1))])];
  if (needles.length === 0) return identity;
  return (s) => {
    let out = s;
    for (const n of needles) if (out.includes(n)) out = out.split(n).join(REDACTED);
    return out;
  };
}
