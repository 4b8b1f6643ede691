import { cell, fields, renderForHumans, table } from '../../scripts/admin/render';

describe('operator CLI rendering', () => {
  const rows = [
    {
      token_id: 'tok_c12606381a92f3ed',
      label: 'ops',
      created_at: new Date('2026-01-02T03:04:05.000Z'),
      revoked_at: null,
    },
    {
      token_id: 'tok_8279b3b4e4731d11aaaa',
      label: 'a much longer label',
      created_at: new Date('2026-01-03T00:00:00.000Z'),
      revoked_at: null,
    },
  ];

  it('renders a table: a header, one aligned row per record, full ids, no trailing spaces', () => {
    const lines = table(rows, ['token_id', 'label', 'created_at']).split('\n');
    expect(lines).toEqual([
      'TOKEN_ID                  LABEL                CREATED_AT',
      'tok_c12606381a92f3ed      ops                  2026-01-02T03:04:05.000Z',
      'tok_8279b3b4e4731d11aaaa  a much longer label  2026-01-03T00:00:00.000Z',
    ]);
  });

  it('clips only columns given a width, takes headers and derived values from the column', () => {
    const out = table(
      rows,
      [{ key: '_id', header: 'ID', value: (r) => r.token_id }, { key: 'label', max: 8 }, 'revoked_at'],
      '  ',
    );
    expect(out.split('\n')).toEqual([
      '  ID                        LABEL     REVOKED_AT',
      '  tok_c12606381a92f3ed      ops       -',
      '  tok_8279b3b4e4731d11aaaa  a much …  -',
    ]);
    expect(table([{ _id: 'x' }], ['_id'])).toBe('ID\nx');
    expect(table([], ['a'])).toBe('(none)');
  });

  it('puts any value on one line', () => {
    expect(cell(null)).toBe('-');
    expect(cell('')).toBe('-');
    expect(cell(['x', 'linkedin'])).toBe('x,linkedin');
    expect(cell([])).toBe('-');
    expect(cell({ kind: 'builtin' })).toBe('{"kind":"builtin"}');
    expect(cell('two\n  lines')).toBe('two lines');
    expect(cell(false)).toBe('false');
  });

  it('renders a record as key: value lines, nested records indented, named lists as tables after the rest', () => {
    const product = {
      product_id: 'p1',
      categories: ['ops', 'test'],
      extra: {},
      runner: { kind: 'http', url: 'https://v.example' },
      actions: [{ slug: 'ping', credits: 2, parameters_schema: { type: 'object' } }],
    };
    expect(fields(product, { tables: { actions: ['slug', 'credits'] } }).split('\n')).toEqual([
      'product_id: p1',
      'categories: ops, test',
      'extra: {}',
      'runner:',
      '  kind: http',
      '  url: https://v.example',
      'actions:',
      '  SLUG  CREDITS',
      '  ping  2',
    ]);
    expect(fields({ a: 1, secret_ish: 'x' }, { hide: ['secret_ish'] })).toBe('a: 1');
  });

  it('falls back to a table of every field for lists and a block for records', () => {
    expect(
      renderForHumans([
        { a: 1, b: 'x' },
        { a: 22, c: true },
      ]).split('\n'),
    ).toEqual(['A   B  C', '1   x  -', '22  -  true']);
    expect(renderForHumans({ balance: 0, expiration: null })).toBe('balance: 0\nexpiration: -');
    expect(renderForHumans({ jobs: [{ job_id: 'job_1' }] }, {})).toBe('jobs:\n  JOB_ID\n  job_1');
    expect(renderForHumans(['a', 'b'])).toBe('a\nb');
    expect(renderForHumans([])).toBe('(none)');
    expect(renderForHumans(undefined)).toBe('-');
  });
});
