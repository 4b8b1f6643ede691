import {
  MAX_RUN_CARRIED_OUTPUTS_BYTES,
  MAX_RUN_OUTPUTS_BYTES,
  outputBytes,
  RunOutputsMeter,
} from '../../shared/workflows/node-output';

describe('the run-wide bounds on node outputs (pure)', () => {
  it('counts outputs as they travel: UTF-8 of text, JSON of anything else', () => {
    expect(outputBytes('héllo')).toBe(6);
    expect(outputBytes({ a: [1, 2] })).toBe(JSON.stringify({ a: [1, 2] }).length);
    expect(outputBytes(null)).toBe(4);
    expect(outputBytes(true)).toBe(4);
  });

  it('refuses the next node once the outputs total more than the bound, not at it', () => {
    const m = new RunOutputsMeter();
    m.added('x'.repeat(MAX_RUN_OUTPUTS_BYTES));
    expect(m.nextNode()).toBeNull();
    m.added('y');
    expect(m.nextNode()).toMatch(/total 1048577 bytes; the limit is 1048576/);
  });

  it('refuses the next node once the nodes would have been handed more than the history bound in all, however small each total', () => {
    const m = new RunOutputsMeter();
    m.added('x'.repeat(600 * 1024));
    const allowed = Math.floor(MAX_RUN_CARRIED_OUTPUTS_BYTES / (600 * 1024));
    for (let i = 0; i < allowed; i++) expect(m.nextNode()).toBeNull();
    expect(m.nextNode()).toMatch(/handed \d+ bytes of outputs in all; the limit is 33554432/);
  });
});
