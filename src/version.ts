// agentd's own version (kept equal to package.json by test/unit/version.test.ts).
export const AGENTD_VERSION = '0.1.0';
