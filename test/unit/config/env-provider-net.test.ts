// The provider and network variables, read in config/env.ts: Claude Code's names, empty as unset, the
// lower-case proxy variable winning, the region and endpoint fallbacks in Claude Code's order.
import { describe, expect, it } from 'vitest';
import { readNetEnv, readProviderEnv } from '../../../src/config/env.js';

describe('readProviderEnv', () => {
  it('types every provider variable, with Claude Code’s fallbacks', () => {
    expect(
      readProviderEnv({
        CLAUDE_CODE_USE_BEDROCK: 'yes',
        CLAUDE_CODE_USE_VERTEX: '0',
        ANTHROPIC_API_KEY: '',
        ANTHROPIC_AUTH_TOKEN: 'tok',
        CLAUDE_CODE_OAUTH_TOKEN: 'oauth',
        AWS_DEFAULT_REGION: 'eu-west-1',
        AWS_ENDPOINT_URL: 'https://aws.example',
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: 'https://bedrock.example',
        CLAUDE_CODE_SKIP_BEDROCK_AUTH: 'TRUE',
        CLOUD_ML_REGION: ' global ',
        ANTHROPIC_FOUNDRY_RESOURCE: 'res',
        CLAUDE_CODE_API_KEY_HELPER_TTL_MS: '60000',
      }),
    ).toEqual({
      use: { bedrock: true, foundry: false, vertex: false },
      anthropic: { apiKey: undefined, authToken: 'tok', baseUrl: undefined, oauthToken: 'oauth' },
      bedrock: { region: 'eu-west-1', baseUrl: 'https://bedrock.example', skipAuth: true, bearerToken: undefined, regionPrefix: undefined },
      vertex: { region: ' global ', projectId: undefined, baseUrl: undefined, skipAuth: false },
      foundry: { apiKey: undefined, baseUrl: undefined, resource: 'res', skipAuth: false },
      helper: { ttlMs: { name: 'CLAUDE_CODE_API_KEY_HELPER_TTL_MS', value: '60000' }, timeoutMs: { name: 'AGENTD_API_KEY_HELPER_TIMEOUT_MS', value: undefined } },
    });
  });
});

describe('readNetEnv', () => {
  it('prefers the lower-case proxy variables and treats empty as unset', () => {
    expect(readNetEnv({ HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2', HTTP_PROXY: 'http://h:3', no_proxy: '', NO_PROXY: 'localhost', CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: '', NODE_EXTRA_CA_CERTS: '/ca.pem' })).toEqual({
      httpProxy: 'http://h:3',
      httpsProxy: 'http://lower:2',
      noProxy: 'localhost',
      clientCert: '',
      clientKey: '',
      clientKeyPassphrase: undefined,
      extraCaCerts: '/ca.pem',
    });
  });
});
