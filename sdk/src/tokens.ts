import type { DataOf, Unsigned } from './api';
import type { Context } from './context';
import type {
  IssueAccessTokenBody,
  IssueAccessTokenResponse,
  ListAccessTokensResponse,
  RevokeOwnAccessTokenResponse,
  RevokePresentedTokenResponse,
} from './generated/api-types';

/** act_...: `access_token` is shown once. */
export type IssuedAccessToken = DataOf<IssueAccessTokenResponse>;
export type AccessTokenInfo = DataOf<ListAccessTokensResponse>['tokens'][number];

/** A wallet's own bearer tokens for {api_url}, minted, listed and revoked by signing. */
export class AccessTokens {
  constructor(private readonly ctx: Context) {}

  /** POST /api/external/auth/access-token (signed): a new act_ token for this wallet. */
  async issue(input: Unsigned<IssueAccessTokenBody> = {}): Promise<IssuedAccessToken> {
    return (await this.ctx.action<IssueAccessTokenResponse>('access_token', { ...input })).data;
  }

  async list(): Promise<AccessTokenInfo[]> {
    return (await this.ctx.action<ListAccessTokensResponse>('access_token_list')).data.tokens;
  }

  async revoke(tokenId: string): Promise<DataOf<RevokeOwnAccessTokenResponse>> {
    return (await this.ctx.action<RevokeOwnAccessTokenResponse>('access_token_revoke', {}, tokenId)).data;
  }

  /** DELETE {api_url}/auth/token: revokes the access token this client holds (whoever holds a leaked token can kill it). */
  async revokeCurrent(): Promise<DataOf<RevokePresentedTokenResponse>> {
    return (
      await this.ctx.send<RevokePresentedTokenResponse>({
        method: 'DELETE',
        url: this.ctx.api('/auth/token'),
        headers: this.ctx.bearer('access'),
      })
    ).body.data;
  }
}
