import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SECONDS = Number(process.env.FUZZ_TEST_SECONDS ?? 90);

/**
 * The bounded fuzz run of `make test`: `make fuzz`'s runner (schemathesis over /openapi.json,
 * test/fuzz/run.ts) for a minute against this run's store, Temporal and chain. It fails on any
 * 500, any response the document does not describe, any invalid input accepted, or any method a
 * path does not serve answered otherwise than 405 with Allow (every path's, /mcp's among them:
 * hooks.py's unserved_methods_refused, which needs no coverage phase).
 */
describe('fuzz: schemathesis against /openapi.json (bounded, seeded)', () => {
  it(
    `finds no server error, no schema mismatch, no accepted invalid input and no unserved method but 405 (seeded cases, at most ${SECONDS} s)`,
    async () => {
      const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['test/fuzz/run.ts'], {
        cwd: ROOT,
        // A fixed seed and a case budget: the same cases on every run (make fuzz explores without them).
        env: {
          ...process.env,
          FUZZ_SECONDS: String(SECONDS),
          FUZZ_SEED: process.env.FUZZ_SEED ?? '20261124',
          FUZZ_MAX_EXAMPLES: process.env.FUZZ_MAX_EXAMPLES ?? '20',
          // The coverage phase needs one worker thread (run.ts: CPython 3.11's ast raced between two); make fuzz runs it, this bounded run keeps two threads.
          FUZZ_PHASES: process.env.FUZZ_PHASES ?? 'examples,fuzzing,stateful',
          LOG_LEVEL: 'silent',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      // On failure the message leads with schemathesis' FAILURES and ERRORS sections (the check, the status, the curl
      // reproduction), so a log cut short still says what failed; the run's tail follows.
      if (code !== 0)
        throw new Error(
          `fuzz run exited ${code}:\n${failuresOf(output)}\n--- the run's last lines ---\n${output.slice(-6_000)}`,
        );
      expect(output).toMatch(/main host: passed; bearer host: passed/);
    },
    (SECONDS + 240) * 1000,
  );
});

/** Every FAILURES and ERRORS section of schemathesis' output (per host run), each cut to 6,000 characters. */
function failuresOf(output: string): string {
  const sections = [
    ...output.matchAll(/=+ (FAILURES|ERRORS) =+\n([\s\S]*?)(?=\n=+ (?:ERRORS|WARNINGS|SUMMARY) =+)/g),
  ].map((m) => `${m[1]}:\n${m[2].trim().slice(0, 6_000)}`);
  return sections.length > 0
    ? sections.join('\n\n')
    : '(no FAILURES or ERRORS section: the stack failed; see the last lines)';
}
