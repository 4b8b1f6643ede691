import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { recoverMessageAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { signRequest, signToolInvoke, signToolInvokeById } from '../../sdk/agent-client';
import {
  buildSignedMessage,
  canonicalJson,
  ENVELOPE_FIELDS,
  isSignatureFrom,
  payloadDigest,
  productPathParams,
  recoverSigner,
  SIGNED_ACTIONS,
  type SignedAction,
  signedActionParts,
  signedPayload,
  toolInvokeByIdParts,
  toolInvokeByIdPath,
  toolInvokeParts,
  toolInvokePath,
} from '../../shared/identity/signing';
import fixture from '../fixtures/signing-vectors.json';

const REPO_ROOT = path.resolve(__dirname, '../..');
const DOC = readFileSync(path.join(REPO_ROOT, 'docs/signing.md'), 'utf8');
const devAccount = privateKeyToAccount(fixture.signer.private_key as `0x${string}`);

interface Vector {
  name: string;
  kind: string;
  action?: string;
  product_id?: string | null;
  product_slug?: string;
  action_slug?: string;
  request_id: string;
  body_json: string;
  canonical_json: string | null;
  digest: string;
  message: string;
  signature: string;
}
const vectors = fixture.vectors as Vector[];

/** Recomputes a vector's payload source and message with the shared builder. */
function rebuild(vector: Vector): { payloadObject: object | ''; message: string } {
  const context = { wallet: fixture.signer.address, sessionNonce: fixture.session_nonce, requestId: vector.request_id };
  const body = JSON.parse(vector.body_json) as Record<string, unknown>;
  if (vector.kind === 'path' || vector.kind === 'path_id') {
    const parts =
      vector.kind === 'path'
        ? toolInvokeParts(vector.product_slug!, vector.action_slug!, body)
        : toolInvokeByIdParts(vector.product_id!, body);
    const payload = signedPayload(parts.payloadObject);
    return {
      payloadObject: parts.payloadObject,
      message: buildSignedMessage({ ...context, kind: 'path', method: parts.method, path: parts.path, payload }),
    };
  }
  const action = vector.action as SignedAction;
  const parts = signedActionParts(action, body, productPathParams(action, vector.product_id ?? undefined));
  const payload = signedPayload(parts.payloadObject);
  return {
    payloadObject: parts.payloadObject,
    message: buildSignedMessage({ ...context, kind: 'action', action, product: parts.product, payload }),
  };
}

describe('published test vectors', () => {
  it('cover the cases the doc promises', () => {
    expect(vectors.map((v) => v.name)).toEqual(
      expect.arrayContaining([
        'balance',
        'job_list',
        'job_complete',
        'tool_invoke_path',
        'tool_invoke_by_id',
        'job_workflow_update',
        'job_workflow_publish',
      ]),
    );
    expect(devAccount.address).toBe(fixture.signer.address);
  });

  describe.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, vector) => {
    it('canonical JSON, digest and message match', () => {
      const { payloadObject, message } = rebuild(vector);
      expect(payloadObject === '' ? null : canonicalJson(payloadObject)).toBe(vector.canonical_json);
      expect(signedPayload(payloadObject)).toBe(vector.digest);
      expect(message).toBe(vector.message);
      expect(message.endsWith('\n')).toBe(false);
      expect(message.split('\n')).toHaveLength(7);
    });

    it('signature matches the dev key and recovers to its address', async () => {
      await expect(devAccount.signMessage({ message: vector.message })).resolves.toBe(vector.signature);
      await expect(recoverSigner(vector.message, vector.signature)).resolves.toBe(fixture.signer.address);
    });

    it('the SDK produces the same envelope', async () => {
      const body = JSON.parse(vector.body_json) as Record<string, unknown>;
      const common = {
        account: fixture.signer.private_key as `0x${string}`,
        sessionNonce: fixture.session_nonce,
        requestId: vector.request_id,
      };
      const envelope =
        vector.kind === 'path_id'
          ? await signToolInvokeById({
              ...common,
              productId: vector.product_id!,
              parameters: body.parameters as object | undefined,
            })
          : vector.kind === 'path'
            ? await signToolInvoke({
                ...common,
                productSlug: vector.product_slug!,
                actionSlug: vector.action_slug!,
                parameters: body.parameters as object,
              })
            : await signRequest({
                ...common,
                action: vector.action as SignedAction,
                productId: vector.product_id ?? undefined,
                body,
              });
      expect(envelope).toEqual({
        wallet_address: fixture.signer.address,
        session_nonce: fixture.session_nonce,
        request_id: vector.request_id,
        signature: vector.signature,
      });
    });

    it('appears verbatim in docs/signing.md', () => {
      for (const text of [vector.body_json, vector.canonical_json, vector.digest, vector.message, vector.signature]) {
        if (text) expect(DOC).toContain(text);
      }
    });
  });
});

describe('canonicalJson: RFC 8785 examples', () => {
  it('section 3.2.2 sample', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('section 3.2.3 sorts keys by UTF-16 code units', () => {
    const input = JSON.parse(
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh",' +
        ' "1": "One", "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control",' +
        ' "\\u00f6": "Latin Small Letter O With Diaeresis"}',
    );
    // Read the order from the text: JSON.parse would move the integer-like key "1" first.
    const order = [...canonicalJson(input).matchAll(/:"([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
  });

  const fromBits = (hex: string): number => {
    const view = new DataView(new ArrayBuffer(8));
    view.setBigUint64(0, BigInt(`0x${hex}`));
    return view.getFloat64(0);
  };

  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('appendix B: %s -> %s', (bits, expected) => {
    expect(canonicalJson(fromBits(bits))).toBe(expected);
  });

  it.each(['7fffffffffffffff', '7ff0000000000000', 'fff0000000000000'])(
    'appendix B: %s (NaN/Infinity) throws',
    (bits) => {
      expect(() => canonicalJson(fromBits(bits))).toThrow(TypeError);
    },
  );
});

describe('canonicalJson: input handling', () => {
  it('drops undefined-valued keys, keeps null, maps undefined array items to null', () => {
    expect(canonicalJson({ b: null, a: undefined, c: [undefined, 1] })).toBe('{"b":null,"c":[null,1]}');
  });

  it('honours toJSON like JSON.stringify', () => {
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  it('equals the canonical form of its own JSON round trip', () => {
    const value = { z: [1.5, -0, 'x', { b: undefined, a: null }], y: new Date(86_400_000), x: 'é\u2028' };
    expect(canonicalJson(value)).toBe(canonicalJson(JSON.parse(JSON.stringify(value))));
  });

  it.each([
    ['BigInt', { n: BigInt(1) }],
    ['function', { f: () => 1 }],
    ['symbol', { s: Symbol('s') }],
    ['NaN', { n: Number.NaN }],
    ['Infinity', [Number.POSITIVE_INFINITY]],
    ['lone surrogate value', { s: 'a\ud800b' }],
    ['lone surrogate key', { '\udc00': 1 }],
    ['top-level undefined', undefined],
  ])('rejects %s with a TypeError', (_label, value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
  });

  it('rejects circular structures with a TypeError but allows shared references', () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"k":1},"b":{"k":1}}');
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => canonicalJson(loop)).toThrow(TypeError);
  });

  it('payloadDigest is lower-case sha256 hex of the UTF-8 canonical text', () => {
    expect(payloadDigest({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    expect(payloadDigest({ b: 'é', a: 1 })).toBe(payloadDigest(JSON.parse('{"a":1,"b":"\\u00e9"}')));
  });

  it('agrees with the canonicalize package on the same inputs', () => {
    const inputs = [
      ...vectors.map((v) => v.body_json),
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,1e-27,-0,1e21,0.1],"s":"\\u0000\\u001f\\u007f\\u2028/"}',
      '{"\\ud83d\\ude00":1,"\\ufb33":2,"a":{"B":[],"A":{}},"":null}',
      '[true,false,null,"",[],{}]',
    ];
    // canonicalize@4 is ESM-only with no "require" export, so run it in a separate ES module process.
    const esm = `
      import canonicalize from 'canonicalize';
      import { readFileSync } from 'node:fs';
      const inputs = JSON.parse(readFileSync(0, 'utf8'));
      process.stdout.write(JSON.stringify(inputs.map((text) => canonicalize(JSON.parse(text)))));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', esm], {
      cwd: REPO_ROOT,
      input: JSON.stringify(inputs),
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual(inputs.map((text) => canonicalJson(JSON.parse(text))));
  });
});

describe('buildSignedMessage', () => {
  const context = { wallet: '0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266', sessionNonce: 's1', requestId: 'r1' };

  it('lower-cases the wallet and defaults product to -', () => {
    expect(buildSignedMessage({ ...context, kind: 'action', action: 'balance', payload: '' })).toBe(
      'service-external\nwallet:0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266\nsession:s1\nrequest:r1\naction:balance\nproduct:-\npayload:',
    );
  });

  it('path form replaces action and product lines', () => {
    const message = buildSignedMessage({
      ...context,
      kind: 'path',
      method: 'POST',
      path: toolInvokePath('p', 'a'),
      payload: 'ab',
    });
    expect(message.split('\n').slice(4)).toEqual([
      'method:POST',
      'path:/external/tools/p/actions/a/invoke',
      'payload:ab',
    ]);
  });

  it.each(['\n', '\r'])('rejects a line break (%j) inside a field', (lineBreak) => {
    expect(() =>
      buildSignedMessage({
        ...context,
        requestId: `r1${lineBreak}action:balance`,
        kind: 'action',
        action: 'x',
        payload: '',
      }),
    ).toThrow(TypeError);
  });

  it('invoke by product id signs the path form', () => {
    expect(toolInvokeByIdPath('prod_1')).toBe('/external/tools/prod_1/invoke');
    expect(toolInvokeByIdParts('prod_1', {})).toEqual({
      method: 'POST',
      path: '/external/tools/prod_1/invoke',
      payloadObject: {},
    });
    expect(() => toolInvokeByIdPath('a/b')).toThrow(TypeError);
  });

  it('rejects slugs outside the unreserved set', () => {
    expect(() => toolInvokePath('a/b', 'c')).toThrow(TypeError);
    expect(() => toolInvokePath('a', 'c%2F')).toThrow(TypeError);
    expect(() => toolInvokePath('', 'c')).toThrow(TypeError);
  });
});

describe('SIGNED_ACTIONS', () => {
  it('builds the payload objects of the action table', () => {
    const envelope = { wallet_address: '0x1', session_nonce: 'n', request_id: 'r', signature: '0x2' };
    const objectOf = (action: SignedAction, body: Record<string, unknown>, productId?: string) =>
      signedActionParts(action, body, productPathParams(action, productId));

    expect(objectOf('balance', envelope)).toEqual({ product: '-', payloadObject: '' });
    expect(objectOf('job_list', { ...envelope, limit: 5 }).payloadObject).toEqual({ limit: 5, skip: undefined });
    expect(canonicalJson(objectOf('job_list', { ...envelope, limit: 5 }).payloadObject)).toBe('{"limit":5}');
    expect(objectOf('job_reserve', envelope, 'j1')).toEqual({ product: 'j1', payloadObject: {} });
    expect(canonicalJson(objectOf('workflow_active', envelope).payloadObject)).toBe('{}');
    expect(canonicalJson(objectOf('workflow_end', { workflow_session_id: 'w' }, 'wf').payloadObject)).toBe(
      '{"workflow_session_id":"w"}',
    );
    expect(objectOf('job_workflow_update', { ...envelope, name: 't', nodes: [] }, 'j1/wf1')).toEqual({
      product: 'j1/wf1',
      payloadObject: { name: 't', nodes: [] },
    });
    expect(objectOf('job_workflow_publish', { ...envelope, bump: 'minor' }, 'j1/wf1').product).toBe('j1/wf1');
    expect(objectOf('job_workflow_create', { ...envelope, name: 't' }, 'j1').product).toBe('j1');
    expect(canonicalJson(objectOf('access_token', { label: null, expires_in_days: 30 }).payloadObject)).toBe(
      '{"expires_in_days":30,"label":null}',
    );
  });

  it('has a product rule for every action', () => {
    for (const [action, spec] of Object.entries(SIGNED_ACTIONS)) {
      const params =
        spec.productParam === null || typeof spec.productParam === 'string'
          ? [spec.productParam]
          : [...spec.productParam];
      for (const param of params) expect([null, 'jobId', 'workflowId', 'productId', 'tokenId']).toContain(param);
      expect(typeof spec.payloadObject).toBe('function');
      expect(action).toMatch(/^[a-z_]+$/);
    }
    expect(ENVELOPE_FIELDS).toEqual(['wallet_address', 'session_nonce', 'request_id', 'signature']);
  });

  it('rejects a missing route parameter, an unexpected product id, non-object parameters and unknown actions', () => {
    expect(() => signedActionParts('job_status', {}, {})).toThrow(TypeError);
    expect(() => productPathParams('balance', 'x')).toThrow(TypeError);
    expect(() => toolInvokeByIdParts('p', { parameters: 'x' })).toThrow(TypeError);
    expect(() => productPathParams('job_workflow_update', 'j1')).toThrow(TypeError);
    expect(() => productPathParams('job_workflow_publish', 'j1/wf1/x')).toThrow(TypeError);
    expect(() => signedActionParts('job_workflow_update', {}, { jobId: 'j1' })).toThrow(TypeError);
    expect(() => signedActionParts('job_workflow_update', {}, { jobId: 'j1/x', workflowId: 'w' })).toThrow(TypeError);
    expect(() => signedActionParts('tool_invoke' as SignedAction, {}, { productId: 'p' })).toThrow(TypeError);
    expect(() => signedActionParts('nope' as SignedAction, {}, {})).toThrow(TypeError);
  });
});

describe('signature verification', () => {
  const message = vectors[0]!.message;
  const signature = vectors[0]!.signature;
  const address = fixture.signer.address;

  it('accepts the right signer in any letter case', async () => {
    await expect(isSignatureFrom(message, signature, address)).resolves.toBe(true);
    await expect(isSignatureFrom(message, signature, address.toLowerCase())).resolves.toBe(true);
  });

  it('rejects another wallet', async () => {
    await expect(isSignatureFrom(message, signature, '0x70997970C51812dc3A010C7d01b50e0d17dc79C8')).resolves.toBe(
      false,
    );
  });

  it('rejects a tampered message', async () => {
    await expect(isSignatureFrom(message.replace('product:-', 'product:x'), signature, address)).resolves.toBe(false);
    await expect(isSignatureFrom(`${message}\n`, signature, address)).resolves.toBe(false);
  });

  it('rejects a malleated (high-s) copy of a valid signature', async () => {
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const v = signature.slice(130) === '1b' ? '1c' : '1b';
    const malleated = `${signature.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${v}`;
    await expect(recoverSigner(message, malleated)).resolves.toBeNull();
  });

  it.each([
    ['empty', ''],
    ['too short', signature.slice(0, -2)],
    ['too long', `${signature}00`],
    ['no 0x', signature.slice(2)],
    ['non-hex', `0x${'zz'.repeat(65)}`],
    ['bad recovery byte', `${signature.slice(0, 130)}05`],
    ['r not a curve point', `0x${'ff'.repeat(32)}${'01'.repeat(32)}1b`],
    ['zero s', `0x${'11'.repeat(32)}${'00'.repeat(32)}1b`],
    ['not a string', 42 as unknown as string],
  ])('returns false / null for a malformed signature (%s) without throwing', async (_label, bad) => {
    await expect(recoverSigner(message, bad)).resolves.toBeNull();
    await expect(isSignatureFrom(message, bad, address)).resolves.toBe(false);
  });

  it('rejects a malformed wallet', async () => {
    await expect(isSignatureFrom(message, signature, address.slice(0, -1))).resolves.toBe(false);
    await expect(isSignatureFrom(message, signature, `${address} `)).resolves.toBe(false);
  });
});

describe('native signature recovery agrees with viem', () => {
  it('recovers the same address as viem for random keys and messages, and null for a broken signature', async () => {
    for (let i = 0; i < 25; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      const message = `service-external\nwallet:${account.address.toLowerCase()}\nsession:s${i}\nrequest:r${i}\naction:balance\nproduct:-\npayload:`;
      const signature = await account.signMessage({ message });
      expect(await recoverSigner(message, signature)).toBe(await recoverMessageAddress({ message, signature }));
      expect(await recoverSigner(message, signature)).toBe(account.address);
      expect(await recoverSigner(`${message}x`, signature)).not.toBe(account.address);
      expect(await isSignatureFrom(message, signature, account.address)).toBe(true);
      expect(await isSignatureFrom(`${message}x`, signature, account.address)).toBe(false);
    }
    // The EIP-191 prefix counts UTF-8 bytes, not characters.
    const account = privateKeyToAccount(generatePrivateKey());
    const wide = 'service-external\nrequest:é✓😀';
    const wideSignature = await account.signMessage({ message: wide });
    expect(await recoverSigner(wide, wideSignature)).toBe(account.address);
    expect(await isSignatureFrom(wide, wideSignature, account.address)).toBe(true);
    const r0 = `0x${'00'.repeat(32)}${'11'.repeat(32)}1b` as const;
    expect(await recoverSigner('m', r0)).toBeNull();
  });
});
