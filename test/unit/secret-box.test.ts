import { SecretBox } from '../../shared/platform/secret-box/index';

// Values sealed by the two modules this one replaced (shared/workspaces/secret-box.ts for
// workspace credentials and webhook signing secrets, shared/tools/secrets.ts for vendor secrets),
// produced by that code with the key below: rows already stored in this format must still open.
const KEY = Buffer.alloc(32, 0x2a);
const SEALED_BY_OLD_CODE = {
  workspaceCredential: {
    context: 'ws_0123456789abcdef:OPENAI_API_KEY',
    sealed: 'v1.ionCqhI0QS-vjPkf.w0ugzmwQkSeVljKyqCKBsg.oY5Fiqe0lPwHx7zDWyV32rHAzNR0rw',
    plain: 'sk-live-credential ✓',
  },
  vendorSecret: {
    context: 'weather_api_key',
    sealed: 'v1.zCYYtJYyDhPBYo08.1e6GO7LFL8a_DU00oYkIWA.FUyfOGuERvG2nCiw5wgR0_xf7i0',
    plain: 'vendor-secret-äöü',
  },
  emptyVendorSecret: {
    context: 'empty_secret',
    sealed: 'v1.ZVan9pMngjFR5tXI.8f76cR3bPVAESDpcZuH7FA.',
    plain: '',
  },
};

describe('one secret box for every secret at rest', () => {
  it.each(Object.entries(SEALED_BY_OLD_CODE))('opens a %s sealed by the old code', (_name, v) => {
    expect(new SecretBox(KEY).open(v.sealed, v.context)).toBe(v.plain);
    // The tool catalog passes its key as hex (TOOL_SECRETS_KEY): the same box.
    expect(new SecretBox(KEY.toString('hex')).open(v.sealed, v.context)).toBe(v.plain);
  });

  it('seals in the stored format: v1 and three base64url parts, a 12-byte IV and a 16-byte tag', () => {
    const sealed = new SecretBox(KEY).seal('secret', 'ctx');
    const [v, iv, tag, data] = sealed.split('.');
    expect(v).toBe('v1');
    expect(Buffer.from(iv!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(data!, 'base64url')).toHaveLength(6);
    expect(new SecretBox(KEY).open(sealed, 'ctx')).toBe('secret');
  });

  it('refuses another context, another key, a tampered text and a short key', () => {
    const { context, sealed } = SEALED_BY_OLD_CODE.vendorSecret;
    expect(() => new SecretBox(KEY).open(sealed, 'other_name')).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 1)).open(sealed, context)).toThrow();
    expect(() => new SecretBox(KEY).open(sealed.replace('v1.', 'v2.'), context)).toThrow('unreadable sealed secret');
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(RangeError);
  });
});
