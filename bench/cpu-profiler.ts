import fs from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

/**
 * Samples this process's CPU (V8's profiler, every 200 µs) until `stop`, which writes the profile
 * to `file` (a .cpuprofile: bench/profile-summary.ts reads it, as do Chrome's DevTools).
 */
export async function startCpuProfile(): Promise<{ stop(file: string): Promise<string> }> {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) =>
      session.post(method, params ?? {}, (err, out) => (err ? reject(err) : resolve(out))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  return {
    stop: async (file) => {
      const { profile } = await post('Profiler.stop');
      session.disconnect();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}
