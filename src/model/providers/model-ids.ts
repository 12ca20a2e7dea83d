// The id a third-party provider is sent for a model name (the catalog is model/catalog.ts). A name the catalog
// knows in any spelling (its catalog id, the first-party id, another provider's id) is sent under this provider's
// id; a Bedrock id gets the cross-region inference prefix chosen from AWS_REGION (us-…→us, eu-…→eu, ap-…→apac,
// us-gov-…→us-gov, else global) unless ANTHROPIC_BEDROCK_REGION_PREFIX says otherwise, exactly as Claude Code
// does. Claude Code 2.1.330 maps only the first-party dated ids this way and sends `claude-sonnet-4-5` to Bedrock
// as typed, which Bedrock refuses: agentd maps the catalog id too (README "Model names"). Sent unchanged, as by
// Claude Code: an id the catalog does not know (an inference profile ARN, a custom deployment name) and a Bedrock
// id that already carries a region prefix (measured: `us.anthropic.…` stays `us.` in eu-west-1).
import { type ThirdParty, lookupModel } from '../catalog.js';

export type { ThirdParty } from '../catalog.js';

const REGION_PREFIX = /^(?:us|eu|apac|jp|au|us-gov|global)\.anthropic\./;

/** The cross-region inference prefix for a Bedrock region (Claude Code's rule). */
export function bedrockRegionPrefix(region: string | undefined, override: string | undefined): string {
  const r = region ?? '';
  if (r.startsWith('us-gov-')) return 'us-gov';
  if (override) return override;
  if (r.startsWith('us-')) return 'us';
  if (r.startsWith('eu-')) return 'eu';
  if (r.startsWith('ap-')) return 'apac';
  return 'global';
}

/** The catalog's Bedrock id (always `us.`-prefixed there) under `prefix`. */
export function withBedrockPrefix(id: string, prefix: string): string {
  return id.replace(/^us\.anthropic\./, `${prefix}.anthropic.`);
}

/** The id to send to `provider` for `model` (unchanged when the catalog does not know it). */
export function providerModelId(model: string, provider: ThirdParty, bedrockPrefix = 'us'): string {
  if (provider === 'bedrock' && (model.startsWith('arn:') || REGION_PREFIX.test(model))) return model;
  const e = lookupModel(model);
  const id = e?.[provider];
  if (!id) return model;
  return provider === 'bedrock' ? withBedrockPrefix(id, bedrockPrefix) : id;
}
