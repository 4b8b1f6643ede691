import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { formFields } from '../../shared/embed/form';
import { escapeHtml, normalizeOrigin, widgetCsp } from '../../shared/embed/rules';
import { parseSignIn, signInMessage } from '../../shared/embed/siwe';
import { isSignatureFrom } from '../../shared/identity/verify-signature';

describe('embed rules (pure)', () => {
  it('escapes the five HTML specials and nothing else', () => {
    expect(escapeHtml(`<img src=x onerror="a('b')">&amp; é`)).toBe(
      '&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;amp; é',
    );
    expect(escapeHtml(undefined)).toBe('');
  });

  it('accepts only bare http(s) origins, normalised as browsers send them', () => {
    expect(normalizeOrigin('https://Shop.Example/')).toBe('https://shop.example');
    expect(normalizeOrigin('http://127.0.0.1:8092')).toBe('http://127.0.0.1:8092');
    expect(normalizeOrigin('https://shop.example:443')).toBe('https://shop.example');
    for (const bad of [
      'https://shop.example/path',
      'https://u:p@shop.example',
      'javascript:alert(1)',
      'file:///etc',
      'null',
      '*',
      'https://shop.example?x=1',
    ]) {
      expect([bad, normalizeOrigin(bad)]).toEqual([bad, null]);
    }
  });

  it('builds a CSP without inline or third-party sources; no origins means no framing', () => {
    expect(widgetCsp([])).toContain("frame-ancestors 'none'");
    const csp = widgetCsp(['https://a.example', 'https://b.example']);
    expect(csp).toContain('frame-ancestors https://a.example https://b.example');
    expect(csp).not.toMatch(/unsafe|\*|https:(?!\/\/[ab]\.example)/);
  });

  it('turns an action schema into typed form fields', () => {
    const fields = formFields({
      type: 'object',
      properties: {
        text: { type: 'string', title: 'Text', description: 'what to send' },
        n: { type: 'integer', default: 3 },
        x: { type: 'number' },
        on: { type: 'boolean', default: true },
        tone: { type: 'string', enum: ['plain', 'friendly'], default: 'plain' },
        meta: { type: 'object' },
      },
      required: ['text'],
    });
    expect(fields.map((f) => [f.name, f.input, f.required, f.defaultValue])).toEqual([
      ['text', 'text', true, ''],
      ['n', 'integer', false, '3'],
      ['x', 'number', false, ''],
      ['on', 'checkbox', false, 'true'],
      ['tone', 'select', false, 'plain'],
      ['meta', 'json', false, ''],
    ]);
    expect(fields[0]).toMatchObject({ label: 'Text', description: 'what to send' });
    expect(fields[4].options).toEqual(['plain', 'friendly']);
    expect(formFields({})).toEqual([]);
  });

  it('writes an EIP-4361 message that parses back and verifies (EIP-191) for its signer only', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const now = new Date('2026-01-01T00:00:00Z');
    const message = signInMessage({
      domain: 'api.example',
      uri: 'https://api.example/embed/bundle/bnd_1',
      origin: 'https://shop.example',
      address: account.address.toLowerCase(),
      chainId: 8453,
      nonce: 'abcdef0123456789',
      issuedAt: now,
      expiresAt: new Date(now.getTime() + 300_000),
    });
    const parsed = parseSignIn(message);
    expect(parsed).toMatchObject({
      domain: 'api.example',
      address: account.address,
      nonce: 'abcdef0123456789',
      chainId: 8453,
      resources: ['https://shop.example'],
    });
    const signature = await account.signMessage({ message });
    expect(await isSignatureFrom(message, signature, account.address)).toBe(true);
    expect(await isSignatureFrom(message.replace('api.example', 'evil.example'), signature, account.address)).toBe(
      false,
    );
    expect(
      await isSignatureFrom(
        message,
        await privateKeyToAccount(generatePrivateKey()).signMessage({ message }),
        account.address,
      ),
    ).toBe(false);
  });
});
