import { readFileSync } from 'node:fs';
import net from 'node:net';
import { freePort, onFreePort } from '../../scripts/services/process';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

describe('freePort', () => {
  it('picks a bindable loopback port below the ephemeral range, where outgoing connections never land', async () => {
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(10000);
      expect(port).toBeLessThan(ephemeralLow);
      await new Promise<void>((resolve, reject) => {
        const srv = net.createServer().once('error', reject);
        srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
      });
    }
  });
});

describe('onFreePort', () => {
  const busy = () => new Error('listen tcp 127.0.0.1:1: bind: address already in use');

  it('picks another port when the one it picked was taken before the server bound it', async () => {
    const tried: number[] = [];
    const result = await onFreePort(undefined, async (port) => {
      tried.push(port);
      if (tried.length === 1) throw busy();
      return port;
    });
    expect(tried).toHaveLength(2);
    expect(result).toBe(tried[1]);
  });

  it('tries a port the caller fixed once, and gives up after three busy picks', async () => {
    let calls = 0;
    await expect(
      onFreePort(4321, async () => {
        calls++;
        throw busy();
      }),
    ).rejects.toThrow(/address already in use/);
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      onFreePort(undefined, async () => {
        calls++;
        throw busy();
      }),
    ).rejects.toThrow(/address already in use/);
    expect(calls).toBe(3);
  });

  it('does not retry an error that is not a busy port', async () => {
    let calls = 0;
    await expect(
      onFreePort(undefined, async () => {
        calls++;
        throw new Error('binary missing');
      }),
    ).rejects.toThrow('binary missing');
    expect(calls).toBe(1);
  });
});
