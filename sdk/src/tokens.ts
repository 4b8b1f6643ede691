import type { Context } from './context';

export interface IssuedAccessToken {
  /** act_...: shown once. */
  access_token: string;
  token_id: string;
  wallet_address: string;
  label: string | null;
  expires_at: string | null;
}

export interface AccessTokenInfo {
  token_id: string;
  label: string | null;
  created_at: string;
  created_by: string;
  expires_at: string | null;
  revoked_at: string | null;
  status: 'active' | 'revoked' | 'expired';
}

/** A wallet's own bearer tokens for {api_url}, minted, listed and revoked by signing. */
export class AccessTokens {
  constructor(private readonly ctx: Context) {}

  /** POST /api/external/auth/access-token (signed): a new act_ token for this wallet. */
  async issue(input: { label?: string; expires_in_days?: number } = {}): Promise<IssuedAccessToken> {
    return (await this.ctx.action<{ data: IssuedAccessToken }>('access_token', input)).data;
  }

  async list(): Promise<AccessTokenInfo[]> {
    return (await this.ctx.action<{ data: { tokens: AccessTokenInfo[] } }>('access_token_list')).data.tokens;
  }

  async revoke(tokenId: string): Promise<{ token_id: string; already_revoked: boolean }> {
    return (await this.ctx.action<{ data: { token_id: string; already_revoked: boolean } }>('access_token_revoke', {}, tokenId)).data;
  }

  /** DELETE {api_url}/auth/token: revokes the access token this client holds (whoever holds a leaked token can kill it). */
  async revokeCurrent(): Promise<{ token_id: string }> {
    return (await this.ctx.send<{ data: { token_id: string } }>({ method: 'DELETE', url: this.ctx.api('/auth/token'), headers: this.ctx.bearer('access') })).body.data;
  }
}
