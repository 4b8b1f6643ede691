/**
 * The benchmarks' child processes: a TypeScript entry in a process (group) of its own, and the
 * benchmark server (bench/server.ts), which prints {"port": N} once it listens.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { generatePrivateKey } from 'viem/accounts';
import { ROOT } from '../scripts/services/paths';

export interface Child {
  proc: ChildProcess;
  exit: Promise<number | null>;
  stdoutLines: (onLine: (line: string) => void) => void;
  tail(): string;
  stop(): Promise<void>;
}

/** A TypeScript entry in its own node process and process group (tsx as a loader, no extra relay process). */
export function spawnTs(script: string, args: string[], env: NodeJS.ProcessEnv, nodeFlags: string[] = []): Child {
  const proc = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env,
    // stdin stays open: the children stop themselves when it closes (we died).
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let tail = '';
  proc.stderr!.on('data', (b: Buffer) => {
    tail = (tail + b.toString()).slice(-4000);
    if (script.endsWith('load.ts')) process.stderr.write(b);
  });
  let code: number | null | undefined;
  const exit = new Promise<number | null>((resolve) =>
    proc.once('exit', (c) => {
      code = c;
      resolve(c);
    }),
  );
  const kill = (sig: NodeJS.Signals) => {
    try {
      process.kill(-proc.pid!, sig);
    } catch {
      /* gone */
    }
  };
  return {
    proc,
    exit,
    stdoutLines: (onLine) => {
      let buf = '';
      proc.stdout!.on('data', (b: Buffer) => {
        buf += b.toString();
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          onLine(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
      });
    },
    tail: () => tail,
    stop: async () => {
      if (code !== undefined) return;
      kill('SIGTERM');
      const hard = setTimeout(() => kill('SIGKILL'), 6000);
      await exit;
      clearTimeout(hard);
      kill('SIGKILL'); // anything left in the group
    },
  };
}

/** Starts bench/server.ts with `env` and waits until it prints its port. */
export async function startBenchServer(env: NodeJS.ProcessEnv): Promise<{ child: Child; port: number }> {
  const child = spawnTs('bench/server.ts', [], {
    // Every bench agent asks for its session from one address.
    AUTH_SESSION_LIMIT_PER_CLIENT: '100000',
    ...env,
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server not up after 60 s:\n${child.tail()}`)), 60_000);
      child.stdoutLines((line) => {
        try {
          const { port: p } = JSON.parse(line) as { port: number };
          clearTimeout(timer);
          resolve(p);
        } catch {
          /* not ours */
        }
      });
      void child.exit.then((c) => reject(new Error(`server exited (${c}) before listening:\n${child.tail()}`)));
    });
    return { child, port };
  } catch (err) {
    await child.stop();
    throw err;
  }
}

/**
 * `env` as a production server accepts it: production refuses development defaults, so this run
 * gets throwaway secrets and public addresses (test/unit/bench-env.test.ts keeps it parseable).
 */
export function productionBenchEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    NODE_ENV: 'production',
    TOOL_SECRETS_KEY: randomBytes(32).toString('hex'),
    JOB_WORKFLOW_TOKEN_SECRET: randomBytes(32).toString('hex'),
    METRICS_TOKEN: randomBytes(16).toString('hex'),
    PUBLIC_BASE_URL: 'https://bench.invalid',
    PUBLIC_API_URL: 'https://api.bench.invalid',
  };
}

/**
 * A local chain's x402 settings (scripts/services/local-chain.ts) with a settlement key of this
 * run instead of the dev mnemonic's, which production refuses. The caller funds it for gas.
 */
export function productionChainEnv(chainEnv: Record<string, string>): Record<string, string> {
  return { ...chainEnv, X402_SETTLEMENT_PRIVATE_KEY: generatePrivateKey() };
}
