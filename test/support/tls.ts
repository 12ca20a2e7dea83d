// Certificates made at test time with openssl (none are checked in): a CA, a server certificate for 127.0.0.1
// signed by it, and a client certificate (with an encrypted key) for mutual TLS.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './daemon.js';

export interface TestPki {
  dir: string;
  caPath: string;
  ca: string;
  server: { key: string; cert: string };
  client: { keyPath: string; certPath: string; passphrase: string };
}

const run = (dir: string, args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

export function makeTestPki(): TestPki {
  const dir = tempDir('agentd-pki-');
  run(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=agentd test CA']);
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  run(dir, ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext']);
  const passphrase = 'client-key-passphrase';
  run(dir, ['req', '-newkey', 'rsa:2048', '-passout', `pass:${passphrase}`, '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=agentd test client']);
  run(dir, ['x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.pem', '-days', '2']);
  return {
    dir,
    caPath: join(dir, 'ca.pem'),
    ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    server: { key: readFileSync(join(dir, 'server.key'), 'utf8'), cert: readFileSync(join(dir, 'server.pem'), 'utf8') },
    client: { keyPath: join(dir, 'client.key'), certPath: join(dir, 'client.pem'), passphrase },
  };
}
