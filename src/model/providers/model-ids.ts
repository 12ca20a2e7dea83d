// Model ids per provider, as Claude Code 2.1.330 maps them (its baked-in model catalog, read from the binary's
// strings): a model named by its alias ("claude-sonnet-4-5"), its first-party id or any provider's id is sent to
// Bedrock, Vertex or Foundry under that provider's id; an id the table does not know (an inference profile ARN,
// a custom deployment name) is sent unchanged. Bedrock ids carry a cross-region inference prefix, chosen from
// AWS_REGION (us-…→us, eu-…→eu, ap-…→apac, us-gov-…→us-gov, else global) unless
// ANTHROPIC_BEDROCK_REGION_PREFIX says otherwise, exactly as Claude Code does.

export type ThirdParty = 'bedrock' | 'vertex' | 'foundry';

interface Ids {
  id: string;
  firstParty: string;
  bedrock: string | null;
  vertex: string | null;
  foundry: string | null;
}

// prettier-ignore
const CATALOG: readonly Ids[] = [
  { id: 'claude-3-5-haiku', firstParty: 'claude-3-5-haiku-20241022', bedrock: 'us.anthropic.claude-3-5-haiku-20241022-v1:0', vertex: 'claude-3-5-haiku@20241022', foundry: 'claude-3-5-haiku' },
  { id: 'claude-3-5-sonnet', firstParty: 'claude-3-5-sonnet-20241022', bedrock: 'us.anthropic.claude-3-5-sonnet-20241022-v2:0', vertex: 'claude-3-5-sonnet-v2@20241022', foundry: 'claude-3-5-sonnet' },
  { id: 'claude-3-7-sonnet', firstParty: 'claude-3-7-sonnet-20250219', bedrock: 'us.anthropic.claude-3-7-sonnet-20250219-v1:0', vertex: 'claude-3-7-sonnet@20250219', foundry: 'claude-3-7-sonnet' },
  { id: 'claude-fable-5', firstParty: 'claude-fable-5', bedrock: 'us.anthropic.claude-fable-5', vertex: 'claude-fable-5', foundry: 'claude-fable-5' },
  { id: 'claude-fable-5-1', firstParty: 'claude-fable-5-1', bedrock: 'us.anthropic.claude-fable-5-1', vertex: 'claude-fable-5-1', foundry: 'claude-fable-5-1' },
  { id: 'claude-fable-5-2', firstParty: 'claude-fable-5-2', bedrock: 'us.anthropic.claude-fable-5-2', vertex: 'claude-fable-5-2', foundry: 'claude-fable-5-2' },
  { id: 'claude-haiku-4-5', firstParty: 'claude-haiku-4-5-20251001', bedrock: 'us.anthropic.claude-haiku-4-5-20251001-v1:0', vertex: 'claude-haiku-4-5@20251001', foundry: 'claude-haiku-4-5' },
  { id: 'claude-haiku-5-5', firstParty: 'claude-haiku-5-5', bedrock: 'us.anthropic.claude-haiku-5-5', vertex: 'claude-haiku-5-5', foundry: 'claude-haiku-5-5' },
  { id: 'claude-opus-4-0', firstParty: 'claude-opus-4-20250514', bedrock: 'us.anthropic.claude-opus-4-20250514-v1:0', vertex: 'claude-opus-4@20250514', foundry: 'claude-opus-4' },
  { id: 'claude-opus-4-1', firstParty: 'claude-opus-4-1-20250805', bedrock: 'us.anthropic.claude-opus-4-1-20250805-v1:0', vertex: 'claude-opus-4-1@20250805', foundry: 'claude-opus-4-1' },
  { id: 'claude-opus-4-5', firstParty: 'claude-opus-4-5-20251101', bedrock: 'us.anthropic.claude-opus-4-5-20251101-v1:0', vertex: 'claude-opus-4-5@20251101', foundry: 'claude-opus-4-5' },
  { id: 'claude-opus-4-6', firstParty: 'claude-opus-4-6', bedrock: 'us.anthropic.claude-opus-4-6-v1', vertex: 'claude-opus-4-6', foundry: 'claude-opus-4-6' },
  { id: 'claude-opus-4-7', firstParty: 'claude-opus-4-7', bedrock: 'us.anthropic.claude-opus-4-7', vertex: 'claude-opus-4-7', foundry: 'claude-opus-4-7' },
  { id: 'claude-opus-4-8', firstParty: 'claude-opus-4-8', bedrock: 'us.anthropic.claude-opus-4-8', vertex: 'claude-opus-4-8', foundry: 'claude-opus-4-8' },
  { id: 'claude-opus-5', firstParty: 'claude-opus-5', bedrock: 'us.anthropic.claude-opus-5', vertex: 'claude-opus-5', foundry: 'claude-opus-5' },
  { id: 'claude-opus-5-5', firstParty: 'claude-opus-5-5', bedrock: 'us.anthropic.claude-opus-5-5', vertex: 'claude-opus-5-5', foundry: 'claude-opus-5-5' },
  { id: 'claude-sonnet-4-0', firstParty: 'claude-sonnet-4-20250514', bedrock: 'us.anthropic.claude-sonnet-4-20250514-v1:0', vertex: 'claude-sonnet-4@20250514', foundry: 'claude-sonnet-4' },
  { id: 'claude-sonnet-4-5', firstParty: 'claude-sonnet-4-5-20250929', bedrock: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', vertex: 'claude-sonnet-4-5@20250929', foundry: 'claude-sonnet-4-5' },
  { id: 'claude-sonnet-4-6', firstParty: 'claude-sonnet-4-6', bedrock: 'us.anthropic.claude-sonnet-4-6', vertex: 'claude-sonnet-4-6', foundry: 'claude-sonnet-4-6' },
  { id: 'claude-sonnet-5', firstParty: 'claude-sonnet-5', bedrock: 'us.anthropic.claude-sonnet-5', vertex: 'claude-sonnet-5', foundry: 'claude-sonnet-5' },
  { id: 'claude-sonnet-5-5', firstParty: 'claude-sonnet-5-5', bedrock: 'us.anthropic.claude-sonnet-5-5', vertex: 'claude-sonnet-5-5', foundry: 'claude-sonnet-5-5' },
];

const REGION_PREFIXES = ['us', 'eu', 'apac', 'jp', 'au', 'us-gov', 'global'] as const;

function lookup(model: string): Ids | undefined {
  const m = model.toLowerCase();
  return CATALOG.find((e) => e.id === m || e.firstParty === m || e.bedrock?.toLowerCase() === m || e.vertex === m || e.foundry === m);
}

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

function withPrefix(id: string, prefix: string): string {
  const base = id.startsWith('arn:') ? id.slice(id.lastIndexOf('/') + 1) : id;
  const current = REGION_PREFIXES.find((p) => base.startsWith(`${p}.anthropic.`));
  if (current) return id.replace(`${current}.`, `${prefix}.`);
  if (id.startsWith('anthropic.')) return `${prefix}.${id}`;
  return id;
}

/** The id to send to `provider` for `model` (unchanged when the catalog does not know it). */
export function providerModelId(model: string, provider: ThirdParty, bedrockPrefix = 'us'): string {
  const e = lookup(model);
  const id = e?.[provider] ?? model;
  return provider === 'bedrock' && e?.bedrock ? withPrefix(id, bedrockPrefix) : id;
}
