/**
 * The service's request and answer types are generated from its OpenAPI document into
 * generated/api-types.ts (`npm run sdk:types`; a test fails when they are stale). These helpers
 * shape them for the SDK's methods; the area modules name the results they return.
 */
import type { SignedEnvelope } from '../../shared/identity/signing';

/** A signed operation's body as the caller gives it: the client adds the envelope (wallet, nonce, request id, signature). */
export type Unsigned<Body> = Omit<Body, keyof SignedEnvelope>;

/** What an answer carries in `data` (per member of a union of answers). */
export type DataOf<Answer> = Answer extends { data: infer D } ? D : never;
