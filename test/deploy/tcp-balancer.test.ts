import net from 'node:net';
import { type RunningBalancer, startTcpBalancer } from '../../scripts/services/tcp-balancer';

/** A server that writes its name to each connection and keeps it open. */
async function named(name: string) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.write(name);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    /** Stops listening and drops every connection, as a killed process does. */
    kill: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** Connects through the balancer; resolves with the first bytes and the socket. */
function connect(port: number) {
  return new Promise<{ said: string; socket: net.Socket }>((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('data', (b) => resolve({ said: b.toString(), socket }));
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('closed before any answer')));
  });
}

describe('the TCP balancer in front of the frontends', () => {
  let a: Awaited<ReturnType<typeof named>>;
  let b: Awaited<ReturnType<typeof named>>;
  let balancer: RunningBalancer;
  const open: net.Socket[] = [];
  beforeEach(async () => {
    a = await named('a');
    b = await named('b');
    balancer = await startTcpBalancer([a.port, b.port]);
  });
  afterEach(async () => {
    for (const s of open) s.destroy();
    await balancer.close();
    await a.kill();
    await b.kill();
  });
  const via = async () => {
    const c = await connect(balancer.port);
    open.push(c.socket);
    return c;
  };

  it('hands new connections to the upstreams in turn', async () => {
    const said = [];
    for (let i = 0; i < 4; i++) said.push((await via()).said);
    expect(said).toEqual(['a', 'b', 'a', 'b']);
    expect(balancer.handed.get(a.port)).toBe(2);
  });

  it('skips an upstream that refuses, and closes a connection whose upstream died so the client reconnects', async () => {
    const first = await via();
    expect(first.said).toBe('a');
    const closed = new Promise((r) => first.socket.once('close', r));
    await a.kill();
    await closed;
    const said = [];
    for (let i = 0; i < 3; i++) said.push((await via()).said);
    expect(said).toEqual(['b', 'b', 'b']);
  });
});
