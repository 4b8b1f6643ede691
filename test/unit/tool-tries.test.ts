import { nextTry } from '../../shared/tools/invoke';

describe('nextTry', () => {
  it('numbers the tries of a worker call after the first', () => {
    expect(nextTry('run:r1:count')).toBe('run:r1:count~2');
    expect(nextTry('run:r1:count~2')).toBe('run:r1:count~3');
    expect(nextTry('run:r1:count~9')).toBe('run:r1:count~10');
    expect(nextTry('a~b')).toBe('a~b~2');
  });
});
