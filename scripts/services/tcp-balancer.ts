import net from 'node:net';

export interface RunningBalancer {
  port: number;
  /** Connections handed to each upstream so far (by its port). */
  handed: Map<number, number>;
  close(): Promise<void>;
}

/**
 * A layer-4 load balancer in front of Temporal's frontends, as a production cluster has one
 * (a cloud TCP balancer, a Kubernetes Service): each new connection goes to the next upstream
 * in turn, skipping one that refuses. It carries bytes and nothing else, so a gRPC channel stays
 * on one frontend for its life; when that frontend dies the channel breaks, the client connects
 * again and lands on a live one, which is the failover clients see in production. Temporal's
 * TypeScript client takes one address, so this is how two frontends are one address.
 */
export async function startTcpBalancer(upstreams: number[], opts: { port?: number } = {}): Promise<RunningBalancer> {
  let next = 0;
  const handed = new Map<number, number>();
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const server = net.createServer((client) => {
    track(client);
    client.setNoDelay(true);
    client.pause();
    const first = next++ % upstreams.length;
    const attempt = (tried: number) => {
      if (client.destroyed) return;
      if (tried >= upstreams.length) return void client.destroy();
      const port = upstreams[(first + tried) % upstreams.length]!;
      const upstream = net.connect({ port, host: '127.0.0.1' });
      track(upstream);
      upstream.setNoDelay(true);
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        handed.set(port, (handed.get(port) ?? 0) + 1);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      upstream.once('error', () => {
        if (!connected) attempt(tried + 1);
      });
      // Either side gone ends both: a half-open gRPC channel would hang its calls instead of failing over.
      upstream.once('close', () => connected && client.destroy());
      client.once('close', () => upstream.destroy());
    };
    client.on('error', () => client.destroy());
    attempt(0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    handed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
