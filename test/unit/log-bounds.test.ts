import { Writable } from 'node:stream';
import winston from 'winston';
import { logger, MAX_LOG_NODES, MAX_LOG_TEXT, redact } from '../../shared/platform/logger/index';
import { sdkLogger } from '../../workers/logging';

/** An object that counts how often a format read its one field. */
function probe() {
  const seen = { reads: 0 };
  return {
    seen,
    value: {
      get data() {
        seen.reads += 1;
        return 'payload';
      },
    },
  };
}

describe('log lines stay small whatever they are handed', () => {
  const lines: Array<Record<string, unknown>> = [];
  const capture = new winston.transports.Stream({
    stream: new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    }),
  });
  const saved = { level: logger.level, silent: logger.silent };
  const quiet = logger.transports.filter((t) => !t.silent);

  beforeAll(() => {
    for (const t of quiet) t.silent = true;
    logger.silent = false;
    logger.level = 'info';
    logger.add(capture);
  });
  afterAll(() => {
    logger.remove(capture);
    for (const t of quiet) t.silent = false;
    Object.assign(logger, saved);
  });

  it('a line below the level is dropped before any format reads its values (the SDK traces whole activations)', () => {
    const below = probe();
    logger.debug('below the level', { payload: below.value });
    sdkLogger.trace('Got workflow activation', { activation: below.value });
    sdkLogger.debug('Got activity task', { task: below.value });
    expect(below.seen.reads).toBe(0);
    expect(lines.some((l) => /below the level|Got workflow activation|Got activity task/.test(String(l.message)))).toBe(
      false,
    );

    // The probe works: a line at the level is formatted and written.
    const kept = probe();
    sdkLogger.warn('kept', { task: kept.value });
    expect(kept.seen.reads).toBe(1);
    expect(lines.find((l) => l.message === 'kept')).toMatchObject({ task: { data: 'payload' } });
  });

  it('bytes are counted, long text is replaced by its length, wide and deep values are cut', () => {
    expect(redact(new Uint8Array(300_000))).toBe('[300000 bytes]');
    expect(redact(Buffer.alloc(10))).toBe('[10 bytes]');
    expect(redact('x'.repeat(1_000_000))).toBe('[text of 1000000 characters]');
    expect(redact('y'.repeat(MAX_LOG_TEXT))).toBe('y'.repeat(MAX_LOG_TEXT));

    // What the Temporal SDK hands its logger: a task whose input payload is a rendered output's bytes.
    const task = {
      taskToken: new Uint8Array(64),
      start: { input: [{ metadata: { encoding: new Uint8Array(16) }, data: new Uint8Array(262_144) }] },
    };
    expect(redact(task)).toEqual({
      taskToken: '[redacted]', // a secret-looking field name, whatever it holds
      start: { input: [{ metadata: { encoding: '[16 bytes]' }, data: '[262144 bytes]' }] },
    });

    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    const long = Array.from({ length: 10_000 }, (_, i) => i);
    const grid = Array.from({ length: 100 }, () => Array.from({ length: 100 }, () => ({ a: 'b' })));
    for (const v of [wide, long, grid, { wide, long, grid }]) {
      const out = JSON.stringify(redact(v));
      expect(out.length).toBeLessThan(MAX_LOG_NODES * 16);
    }
    // Secrets are still masked inside the bounds.
    expect(redact({ note: `k 0x${'5c'.repeat(32)}`, privateKey: 'x' })).toEqual({
      note: 'k 0x[redacted]',
      privateKey: '[redacted]',
    });
  });
});
