// A loopback HTTP proxy that speaks CONNECT (what HTTPS_PROXY / HTTP_PROXY clients send), for tests. It records
// every CONNECT target, and can misbehave on purpose: refuse the tunnel (403) or drop the connection.
import { type Server, createServer } from 'node:http';
import { type AddressInfo, type Socket, connect } from 'node:net';

export type ProxyMode = 'tunnel' | 'refuse' | 'drop';

export interface ConnectProxy {
  url: string;
  /** host:port of every CONNECT request, in order. */
  connects: string[];
  /** Plain (non-CONNECT) proxy requests, which agentd should never send. */
  plain: string[];
  close(): Promise<void>;
}

/** `route` maps a CONNECT target (host:port) to where the proxy really connects (the proxy resolves names, as real ones do). */
export async function startConnectProxy(mode: ProxyMode = 'tunnel', route: Record<string, string> = {}): Promise<ConnectProxy> {
  const connects: string[] = [];
  const plain: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    plain.push(`${req.method ?? ''} ${req.url ?? ''}`);
    res.writeHead(501).end('this proxy only tunnels (CONNECT)');
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    connects.push(target);
    if (mode === 'drop') {
      client.destroy();
      return;
    }
    if (mode === 'refuse') {
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const to = route[target] ?? target;
    const [host, port] = [to.slice(0, to.lastIndexOf(':')), Number(to.slice(to.lastIndexOf(':') + 1))];
    client.setNoDelay(true);
    const upstream = connect(port, host, () => {
      upstream.setNoDelay(true);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connects,
    plain,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
