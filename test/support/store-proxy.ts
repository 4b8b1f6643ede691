import net from 'node:net';

/**
 * A TCP proxy in front of the MongoDB-wire server that a test can make "stop" at an exact point
 * of a request: when a client message holding a given text (an op id, say) goes by, the store is
 * cut off after that message (its answer lost) or after its answer, and stays away for a while.
 * While away, every connection is closed and new ones are refused, as a killed server would.
 */
export interface StoreProxy {
  uri: string;
  /** Arms the cut: the next client message holding `text` is the last one served. */
  cutAfter(text: string, opts: { answer: boolean; downMs: number }): void;
  /** Resolves when the armed cut has happened (the store is away). */
  cut(): Promise<void>;
  /** Resolves when the store is reachable again after a cut. */
  back(): Promise<void>;
  stop(): Promise<void>;
}

export async function startStoreProxy(targetUri: string): Promise<StoreProxy> {
  const target = new URL(targetUri);
  const sockets = new Set<net.Socket>();
  let downUntil = 0;
  let armed: { text: Buffer; answer: boolean; downMs: number } | undefined;
  let onCut: () => void = () => undefined;
  let cutDone = new Promise<void>((r) => (onCut = r));
  let onBack: () => void = () => undefined;
  let backDone = new Promise<void>((r) => (onBack = r));

  const goDown = (downMs: number) => {
    downUntil = Date.now() + downMs;
    for (const s of sockets) s.destroy();
    onCut();
    setTimeout(onBack, downMs);
  };

  const server = net.createServer((client) => {
    if (Date.now() < downUntil) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    let tail: Buffer = Buffer.alloc(0);
    // After the matched message: its answer ends the service (forwarded first, or dropped).
    let onAnswer: { forward: boolean; downMs: number } | undefined;
    client.on('data', (chunk: Buffer) => {
      const cut = armed;
      // Matched across chunk boundaries: the previous chunk's tail is searched with this one.
      const seen = cut ? Buffer.concat([tail, chunk]) : chunk;
      if (cut) tail = seen.subarray(Math.max(0, seen.length - cut.text.length));
      if (cut && seen.includes(cut.text)) {
        armed = undefined;
        onAnswer = { forward: cut.answer, downMs: cut.downMs };
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (Date.now() < downUntil) return;
      const end = onAnswer;
      if (!end) {
        client.write(chunk);
        return;
      }
      onAnswer = undefined;
      if (end.forward) client.write(chunk, () => goDown(end.downMs));
      else goDown(end.downMs);
    });
    const close = () => {
      sockets.delete(client);
      sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const uri = new URL(targetUri);
  uri.host = `127.0.0.1:${port}`;

  return {
    uri: uri.toString(),
    cutAfter(text, opts) {
      armed = { text: Buffer.from(text), ...opts };
      cutDone = new Promise<void>((r) => (onCut = r));
      backDone = new Promise<void>((r) => (onBack = r));
    },
    cut: () => cutDone,
    back: () => backDone,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
