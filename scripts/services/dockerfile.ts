import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './paths';

/** One stage of the Dockerfile as far as our tools replay it: ENV, COPY (with --from), RUN and CMD. */
export interface DockerStage {
  name: string;
  env: Record<string, string>;
  copies: Array<{ from: string[]; to: string; stage?: string }>;
  /** The RUN lines in order: the npm install, then (build stage) npm run build. */
  runs: string[];
  cmd: string[];
}

/** The Dockerfile's stages, in order (the last one is the image that runs). */
export function readDockerfile(root = ROOT): DockerStage[] {
  const stages: DockerStage[] = [];
  for (const line of fs
    .readFileSync(path.join(root, 'Dockerfile'), 'utf8')
    .split('\n')
    .map((l) => l.trim())) {
    const [op, ...rest] = line.split(/\s+/);
    if (op === 'FROM')
      stages.push({ name: rest[2] ?? `stage${stages.length}`, env: {}, copies: [], runs: [], cmd: [] });
    const stage = stages[stages.length - 1];
    if (op === 'ENV') for (const kv of rest) stage.env[kv.split('=')[0]] = kv.split('=').slice(1).join('=');
    if (op === 'COPY') {
      const from = rest[0].startsWith('--from=') ? rest.shift()!.slice('--from='.length) : undefined;
      stage.copies.push({ from: rest.slice(0, -1), to: rest[rest.length - 1], stage: from });
    }
    if (op === 'RUN') stage.runs.push(rest.join(' '));
    if (op === 'CMD') stage.cmd = JSON.parse(line.slice(4));
  }
  return stages;
}

/** The environment the image's processes start with (its last stage's ENV lines). */
export function imageEnv(root = ROOT): Record<string, string> {
  const stages = readDockerfile(root);
  return { ...stages[stages.length - 1]?.env };
}
