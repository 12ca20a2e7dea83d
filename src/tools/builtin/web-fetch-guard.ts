// WebFetch never reaches private, loopback, link-local or otherwise non-public addresses unless allowed
// (AGENTD_WEBFETCH_ALLOW_PRIVATE=1): a page the model was pointed at must not turn it into a probe of the
// machine's own network (cloud metadata at 169.254.169.254, services on 127.0.0.1). The host's addresses are
// resolved before each request (and each redirect hop); all of them must be public. Residual: the fetch
// resolves the name again, so a DNS answer that changes in between (rebinding) is not caught.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** Whether `ip` (v4 or v6) is outside the public internet. An IPv4-mapped IPv6 address is judged as IPv4. */
export function isNonPublicAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped) return blocked.check(mapped, 'ipv4');
  const family = isIP(ip);
  if (family === 0) return true;
  return blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** Rejects when `hostname` is, or resolves to, a non-public address (or does not resolve). */
export async function checkPublicHost(hostname: string): Promise<void> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  const bad = addresses.find(isNonPublicAddress);
  if (bad !== undefined) {
    throw new Error(
      `${hostname} ${bad === host ? 'is a' : `resolves to ${bad}, a`} private, loopback or link-local address; WebFetch fetches public addresses only (AGENTD_WEBFETCH_ALLOW_PRIVATE=1 allows them).`,
    );
  }
}
