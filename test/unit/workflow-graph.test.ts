import { returnedPart } from '../../shared/credits/ledger';
import { SecretBox } from '../../shared/platform/secret-box/index';
import { compareSemver, isSemver } from '../../shared/platform/semver';
import { evaluateCondition, nextDecisions, topoOrder, validateWorkflowGraph } from '../../shared/workflows/graph';
import { parseWorkflowInput } from '../../shared/workflows/schemas';
import { renderTemplate, renderValue, templateRefs } from '../../shared/workflows/template';

const t = (id: string, template = 'x') => ({ id, type: 'template', template });

describe('validateWorkflowGraph', () => {
  it('accepts a valid branching graph', () => {
    const nodes = [
      t('a', '{{prompt}}'),
      { id: 'c', type: 'condition', input: '{{nodes.a.output}}', operator: 'contains', value: 'yes' },
      t('y', 'Y: {{nodes.a.output}}'),
      t('n', 'N'),
      { id: 'm', type: 'model', prompt: '{{nodes.a.output}}' },
      { id: 'k', type: 'tool', product: 'demo', parameters: { q: '{{prompt}}', key: '{{credentials.API}}' } },
    ];
    const edges = [
      { from: 'a', to: 'c' },
      { from: 'c', to: 'y', when: true },
      { from: 'c', to: 'n', when: false },
      { from: 'a', to: 'm' },
      { from: 'a', to: 'k' },
    ];
    expect(validateWorkflowGraph(nodes, edges, ['API'])).toEqual([]);
  });

  it('names an unknown node type at its path', () => {
    expect(validateWorkflowGraph([t('a'), { id: 'b', type: 'shell', cmd: 'rm' }], [])).toEqual([
      { path: 'nodes[1].type', code: 'unknown_node_type', message: expect.stringContaining('"shell"') },
    ]);
  });

  it('names a dangling edge at its end', () => {
    expect(validateWorkflowGraph([t('a')], [{ from: 'a', to: 'ghost' }])).toEqual([
      { path: 'edges[0].to', code: 'dangling_edge', message: 'no node "ghost"' },
    ]);
  });

  it('finds a cycle and names an edge on it', () => {
    const problems = validateWorkflowGraph(
      [t('a'), t('b'), t('c'), t('d')],
      [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'b' },
        { from: 'c', to: 'd' },
      ],
    );
    expect(problems).toEqual([{ path: 'edges[1]', code: 'cycle', message: 'the edges form a cycle through b, c' }]);
    expect(validateWorkflowGraph([t('a')], [{ from: 'a', to: 'a' }])[0]).toMatchObject({
      path: 'edges[0]',
      code: 'cycle',
    });
  });

  it('refuses duplicate ids, missing fields, stray fields, bad operators and regexes', () => {
    const problems = validateWorkflowGraph(
      [
        t('a'),
        t('a'),
        { id: 'm', type: 'model' },
        { id: 'x', type: 'template', template: 'x', extra: 1 },
        { id: 'c', type: 'condition', input: 'x', operator: 'like' },
        { id: 'r', type: 'condition', input: 'x', operator: 'matches', value: '(' },
      ],
      [],
    );
    expect(problems.map((p) => [p.path, p.code])).toEqual([
      ['nodes[1].id', 'duplicate_node_id'],
      ['nodes[2].prompt', 'invalid_node'],
      ['nodes[3].extra', 'invalid_node'],
      ['nodes[4].operator', 'invalid_node'],
      ['nodes[5].value', 'invalid_node'],
    ]);
  });

  it('checks edges: when only (and always) on edges leaving a condition', () => {
    const c = { id: 'c', type: 'condition', input: 'x', operator: 'empty' };
    expect(validateWorkflowGraph([t('a'), c], [{ from: 'a', to: 'c', when: true }])[0]).toMatchObject({
      path: 'edges[0].when',
      code: 'invalid_edge',
    });
    expect(validateWorkflowGraph([t('a'), c], [{ from: 'c', to: 'a' }])[0]).toMatchObject({
      path: 'edges[0].when',
      code: 'invalid_edge',
    });
  });

  it('refuses references to nodes that do not run before, bad references and undeclared credentials', () => {
    const problems = validateWorkflowGraph(
      [
        t('a', '{{nodes.b.output}}'),
        t('b', '{{ nodes.zz.output }} {{ process.env }}'),
        { id: 'k', type: 'tool', product: 'p', parameters: { k: ['{{credentials.SECRET}}'] } },
        t('d', '{{credentials.X}}'),
      ],
      [],
    );
    expect(problems.map((p) => [p.path, p.code])).toEqual([
      ['nodes[0].template', 'unknown_reference'],
      ['nodes[1].template', 'invalid_template'],
      ['nodes[1].template', 'unknown_reference'],
      ['nodes[2].parameters.k[0]', 'undeclared_credential'],
      ['nodes[3].template', 'invalid_template'],
    ]);
  });

  it('parseWorkflowInput reports envelope problems with paths', () => {
    const r = parseWorkflowInput({ name: '', nodes: [], credentials: ['bad name'] });
    expect(r.problems.map((p) => p.path)).toEqual(['name', 'nodes', 'credentials[0]']);
    expect(parseWorkflowInput({ name: 'ok', nodes: [t('a')] }).value).toMatchObject({
      edges: [],
      credentials: [],
      status: 'draft',
      description: '',
    });
  });
});

describe('running a graph (pure rules)', () => {
  const edges = [
    { from: 'a', to: 'c' },
    { from: 'c', to: 'y', when: true },
    { from: 'c', to: 'n', when: false },
    { from: 'y', to: 'z' },
    { from: 'n', to: 'z' },
  ];
  const order = topoOrder(['a', 'c', 'y', 'n', 'z'], edges)!;

  it('orders, branches and joins', () => {
    expect(order).toEqual(['a', 'c', 'y', 'n', 'z']);
    expect(
      nextDecisions(order, edges, { a: 'pending', c: 'pending', y: 'pending', n: 'pending', z: 'pending' }, {}),
    ).toEqual([{ id: 'a', run: true }]);
    const state = { a: 'done', c: 'done', y: 'pending', n: 'pending', z: 'pending' } as const;
    expect(nextDecisions(order, edges, state, { c: false })).toEqual([
      { id: 'y', run: false },
      { id: 'n', run: true },
    ]);
    expect(nextDecisions(order, edges, { ...state, y: 'skipped', n: 'done' }, { c: false })).toEqual([
      { id: 'z', run: true },
    ]);
    expect(nextDecisions(order, edges, { ...state, y: 'skipped', n: 'skipped' }, { c: false })).toEqual([
      { id: 'z', run: false },
    ]);
  });

  it('evaluates conditions', () => {
    expect(evaluateCondition('contains', 'Yes, please', 'yes')).toBe(true);
    expect(evaluateCondition('contains', 'Yes, please', 'yes', false)).toBe(false);
    expect(evaluateCondition('equals', ' ok ', 'OK')).toBe(true);
    expect(evaluateCondition('matches', 'order 42', '\\d+')).toBe(true);
    expect(evaluateCondition('empty', '  ', '')).toBe(true);
    expect(evaluateCondition('not_empty', 'a', '')).toBe(true);
  });

  it('matches runs in linear time: ^(a+)+$ against 50 a and a bang answers at once', () => {
    const started = Date.now();
    expect(evaluateCondition('matches', 'a'.repeat(50) + '!', '^(a+)+$')).toBe(false);
    expect(evaluateCondition('matches', 'a'.repeat(10_000) + '!', '^(a|aa)+$')).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses at validation patterns RE2 cannot run in linear time, and overlong patterns', () => {
    const cond = (value: string) => ({ id: 'c', type: 'condition', input: 'x', operator: 'matches', value });
    expect(validateWorkflowGraph([cond('^(a+)+$')], [])).toEqual([]);
    for (const bad of ['(a)\\1', '(?=a)b', 'x'.repeat(513)]) {
      expect(validateWorkflowGraph([cond(bad)], [])).toEqual([
        { path: 'nodes[0].value', code: 'invalid_node', message: expect.any(String) },
      ]);
    }
    expect(() => evaluateCondition('matches', 'aa', '(a)\\1')).toThrow(/RE2/);
  });

  it('caps a model node max_tokens at validation (whole numbers 1..4096)', () => {
    const ask = (max_tokens: number) => ({ id: 'm', type: 'model', prompt: 'x', max_tokens });
    expect(validateWorkflowGraph([ask(4096)], [])).toEqual([]);
    for (const bad of [4097, 1_000_000, 0, 1.5]) {
      expect(validateWorkflowGraph([ask(bad)], [])).toEqual([
        { path: 'nodes[0].max_tokens', code: 'invalid_node', message: expect.stringContaining('4096') },
      ]);
    }
  });
});

describe('partial capture (pure)', () => {
  it('gives back the last-taken deductions first', () => {
    const taken = [
      { grant_id: 'a', credits: 5 },
      { grant_id: 'b', credits: 10 },
    ];
    expect(returnedPart(taken, 15)).toEqual([]);
    expect(returnedPart(taken, 12)).toEqual([{ grant_id: 'b', credits: 3 }]);
    expect(returnedPart(taken, 2)).toEqual([
      { grant_id: 'b', credits: 10 },
      { grant_id: 'a', credits: 3 },
    ]);
  });
});

describe('templates', () => {
  const scope = {
    prompt: 'hi',
    outputs: { a: 'text', j: { user: { name: 'Ada' } }, s: '{"n":3}' },
    metadata: { lang: 'en' },
    credentials: { K: 'sek' },
  };

  it('renders references, paths, JSON and escapes', () => {
    expect(
      renderTemplate(
        '{{prompt}} {{ nodes.a.output }} {{nodes.j.output.user.name}} {{nodes.s.output.n}} {{metadata.lang}} {{{{x}}',
        scope,
      ),
    ).toBe('hi text Ada 3 en {{x}}');
    expect(renderTemplate('{{nodes.j.output}}', scope)).toBe('{"user":{"name":"Ada"}}');
    expect(renderTemplate('{{nodes.missing.output}}|{{constructor}}|{{nodes.j.output.__proto__}}', scope)).toBe('||');
  });

  it('keeps the type of a whole-value reference inside tool parameters', () => {
    expect(
      renderValue({ q: '{{nodes.j.output.user}}', k: 'Bearer {{credentials.K}}', n: 5, l: ['{{prompt}}'] }, scope),
    ).toEqual({ q: { name: 'Ada' }, k: 'Bearer sek', n: 5, l: ['hi'] });
  });

  it('lists references and the first bad one', () => {
    expect(templateRefs('{{prompt}} {{nodes.a.output.x}}').refs).toEqual([
      { kind: 'prompt' },
      { kind: 'node', node: 'a', path: ['x'] },
    ]);
    expect(templateRefs('{{ a + b }}').invalid).toBe('{{ a + b }}');
  });

  it('a nested-reference bomb stops at the render budget instead of building hundreds of MB', () => {
    const big = JSON.stringify({ x: 'a'.repeat(200_000) });
    const bomb = { prompt: '', outputs: { a: big } };
    const started = Date.now();
    expect(() => renderTemplate('{{nodes.a.output}}'.repeat(1000), bomb)).toThrow(
      expect.objectContaining({ name: 'node_output_too_large' }),
    );
    expect(() => renderTemplate('{{nodes.a.output.x}}'.repeat(1000), bomb)).toThrow(
      expect.objectContaining({ name: 'node_output_too_large' }),
    );
    expect(() => renderValue({ p: Array(1000).fill('{{nodes.a.output}}') }, bomb)).toThrow(
      expect.objectContaining({ name: 'node_output_too_large' }),
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(renderTemplate('{{nodes.a.output.x}}', bomb)).toHaveLength(200_000);
    expect(() => renderTemplate('{{prompt}}{{prompt}}', { prompt: 'abc', outputs: {} }, 5)).toThrow(/exceeds 5/);
  });
});

describe('semver and sealed secrets', () => {
  it('compares strict versions', () => {
    expect(['1.0.0', '0.10.2'].every(isSemver)).toBe(true);
    expect(['1.0', '01.0.0', '1.0.0-beta', 'v1.0.0'].some(isSemver)).toBe(false);
    expect(compareSemver('1.10.0', '1.9.9')).toBeGreaterThan(0);
    expect(compareSemver('1.0.0', '1.0.0')).toBe(0);
  });

  it('seals with AES-256-GCM bound to its context', () => {
    const box = new SecretBox(Buffer.alloc(32, 7));
    const sealed = box.seal('s3cret', 'ws_1:API');
    expect(sealed).not.toContain('s3cret');
    expect(sealed).toMatch(/^v1\./);
    expect(box.open(sealed, 'ws_1:API')).toBe('s3cret');
    expect(() => box.open(sealed, 'ws_2:API')).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed, 'ws_1:API')).toThrow();
    expect(box.seal('s3cret', 'ws_1:API')).not.toBe(sealed);
  });
});
