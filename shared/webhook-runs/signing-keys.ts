import { insertOnce } from '../platform/db/index';
import { errors } from '../platform/errors/index';
import { webhookSecret } from '../platform/ids/index';
import { requireSecretBox, SecretBox } from '../platform/secret-box/index';
import type { WorkspaceRepository } from '../workspaces/index';
import { ed25519Key, hmacKey, newEd25519Pair, type SigningKey } from './callback-sign';
import type { WebhookRunsModels as Models } from './models/index';
import type { SignatureScheme, SigningKeyDoc } from './models/signing-key';
import type { PublicSigningKey } from './types';

/** At most this many keys sign one POST (rotations inside one another's overlap window). */
export const MAX_KEYS_IN_FORCE = 3;

/** The group's first key (agent_groups), as a rotation record would describe it. */
type KeyRef = Pick<SigningKeyDoc, 'version' | 'scheme' | 'public_key'> & {
  created_at: Date | null;
  previous_valid_until: Date | null;
};

const ORIGINAL: KeyRef = { version: 0, scheme: 'v1', public_key: null, created_at: null, previous_valid_until: null };

/**
 * The keys that sign at `now` (pure): the newest, then each older one while the key after it
 * says the overlap has not ended. `newestFirst` are the latest rotations; the original key
 * (version 0) follows the oldest of them when the chain reaches it. Bounded by MAX_KEYS_IN_FORCE.
 */
export function keysInForce(newestFirst: readonly KeyRef[], now: Date): { key: KeyRef; validUntil: Date | null }[] {
  const chain = [...newestFirst];
  if (chain.length === 0 || chain[chain.length - 1].version === 1) chain.push(ORIGINAL);
  const out: { key: KeyRef; validUntil: Date | null }[] = [{ key: chain[0], validUntil: null }];
  for (let i = 1; i < chain.length && out.length < MAX_KEYS_IN_FORCE; i++) {
    const until = chain[i - 1].previous_valid_until;
    if (!until || until.getTime() <= now.getTime() || chain[i].version !== chain[i - 1].version - 1) break;
    out.push({ key: chain[i], validUntil: until });
  }
  return out;
}

/**
 * A group's callback signing keys: rotations are inserts under `<group>:<version>` (the first of
 * two racing rotations wins the version; the other is told to retry), secrets sealed with the
 * credentials key like every secret at rest (SecretBox, bound to the key's id).
 */
export class SigningKeyRepository {
  private readonly box?: SecretBox;

  constructor(
    private readonly models: Pick<Models, 'signingKeys'>,
    private readonly workspaces: Pick<WorkspaceRepository, 'groupWebhookSecret'>,
    secretKey?: Buffer,
  ) {
    this.box = secretKey ? new SecretBox(secretKey) : undefined;
  }

  private sealer(): SecretBox {
    return requireSecretBox(this.box);
  }

  private latest(groupId: string): Promise<SigningKeyDoc[]> {
    return this.models.signingKeys
      .find({ group_id: groupId })
      .sort({ version: -1 })
      .limit(MAX_KEYS_IN_FORCE)
      .lean<SigningKeyDoc[]>()
      .exec();
  }

  /** The keys that sign a POST made at `now`, newest first, opened for use. */
  async forSigning(groupId: string, now: Date): Promise<SigningKey[]> {
    const docs = await this.latest(groupId);
    const byVersion = new Map(docs.map((d) => [d.version, d]));
    return Promise.all(
      keysInForce(docs, now).map(async ({ key }): Promise<SigningKey> => {
        if (key.version === 0)
          return { scheme: 'v1', version: 0, secret: hmacKey(await this.workspaces.groupWebhookSecret(groupId)) };
        const doc = byVersion.get(key.version)!;
        const plain = this.sealer().open(doc.secret_enc, doc._id);
        return doc.scheme === 'v1'
          ? { scheme: 'v1', version: doc.version, secret: hmacKey(plain) }
          : { scheme: 'v1a', version: doc.version, privateKey: ed25519Key(plain) };
      }),
    );
  }

  /** The keys in force, as the group may read them (public keys in `whpk_` form). */
  async inForce(groupId: string, now: Date): Promise<PublicSigningKey[]> {
    return keysInForce(await this.latest(groupId), now).map(({ key, validUntil }) => ({
      version: key.version,
      scheme: key.scheme,
      public_key: key.public_key,
      created_at: key.created_at,
      valid_until: validUntil,
    }));
  }

  /**
   * A new key (its scheme, or the newest key's); the key before it keeps signing for
   * `overlapSeconds`. The secret of a `v1` key is returned once; a `v1a` key's private half never
   * leaves the store, its public key is returned.
   */
  async rotate(i: { groupId: string; scheme?: SignatureScheme; overlapSeconds: number; now: Date }): Promise<{
    key: PublicSigningKey;
    secret: string | null;
    previousValidUntil: Date;
  }> {
    const [newest] = await this.latest(i.groupId);
    const version = (newest?.version ?? 0) + 1;
    const scheme = i.scheme ?? newest?.scheme ?? 'v1';
    const id = `${i.groupId}:${version}`;
    const pair = scheme === 'v1a' ? newEd25519Pair() : null;
    const secret = pair ? null : webhookSecret();
    const previousValidUntil = new Date(i.now.getTime() + i.overlapSeconds * 1000);
    const doc: SigningKeyDoc = {
      _id: id,
      group_id: i.groupId,
      version,
      scheme,
      secret_enc: this.sealer().seal(pair ? pair.pkcs8 : secret!, id),
      public_key: pair?.publicKey ?? null,
      created_at: i.now,
      previous_valid_until: previousValidUntil,
    };
    if (!(await insertOnce(this.models.signingKeys, doc)))
      throw errors.conflict(
        'signing_key_rotation_conflict',
        `another rotation of this group's signing key took version ${version} just now; read the keys and rotate again if still needed`,
      );
    return {
      key: { version, scheme, public_key: doc.public_key, created_at: i.now, valid_until: null },
      secret,
      previousValidUntil,
    };
  }
}
