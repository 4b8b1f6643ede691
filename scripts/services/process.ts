import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * A free loopback port below the kernel's ephemeral range. The kernel's own pick (`listen(0)`)
 * comes from that range, where any outgoing connection on the machine can take it before our
 * server binds it; below the range only another server can.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  for (let i = 0; i < 50; i++) {
    const port = 10000 + Math.floor(Math.random() * (low - 10000));
    if (await bindable(port)) return port;
  }
  return kernelPort();
}

/**
 * Starts a server on a port we picked, picking again if someone took it between our pick and
 * the server's bind. A port the caller fixed is tried once.
 */
export async function onFreePort<T>(fixed: number | undefined, start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(fixed || (await freePort()));
    } catch (err) {
      if (fixed || !isPortBusy(err) || attempt >= 3) throw err;
    }
  }
}

export function isPortBusy(err: unknown): boolean {
  return err instanceof Error && /address already in use|AddrInUse|EADDRINUSE/i.test(err.message);
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return low > 20000 ? low : 32768;
  } catch {
    return 32768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    sock.setTimeout(500);
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('timeout', () => {
      sock.destroy();
      resolve(false);
    });
    sock.once('error', () => resolve(false));
  });
}

/**
 * Spawns a long-running server in its own process group, keeps the tail of its output for
 * error messages, and waits until `ready()` says yes (bounded by timeoutMs).
 */
export async function startProcess(opts: {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  ready: () => Promise<boolean>;
  timeoutMs?: number;
  inheritOutput?: boolean;
  /** Run as this user and group (root starting a server that refuses root). */
  uid?: number;
  gid?: number;
  /** How to ask it to stop (default SIGTERM); SIGKILL follows after 8 s. */
  stopSignal?: NodeJS.Signals;
}): Promise<ManagedProcess> {
  const child = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    uid: opts.uid,
    gid: opts.gid,
    env: { ...process.env, ...opts.env },
    stdio: opts.inheritOutput ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let tail = '';
  const keep = (b: Buffer) => {
    tail = (tail + b.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );

  const stop = async () => {
    if (exited !== undefined) return;
    try {
      process.kill(-child.pid!, opts.stopSignal ?? 'SIGTERM');
    } catch {
      return;
    }
    const killer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, 8000);
    await exit;
    clearTimeout(killer);
  };

  const deadline = Date.now() + (opts.timeoutMs ?? 60000);
  while (!(await opts.ready().catch(() => false))) {
    if (exited !== undefined) {
      throw new Error(`${opts.name} exited with code ${exited} before it was ready:\n${tail}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${opts.name} not ready after ${opts.timeoutMs ?? 60000} ms:\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name: opts.name, child, stop };
}
