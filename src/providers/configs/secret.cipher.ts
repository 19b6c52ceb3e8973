import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
/** 96-bit nonces, GCM's native size, drawn at random for every encryption. */
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 'v1';

/** Why a sealed secret could not be opened: no key at all, a key that no longer matches, or damaged data. */
export type UnsealFailure = 'no_key' | 'unknown_key' | 'corrupt';

export class SecretUnsealError extends Error {
  constructor(readonly reason: UnsealFailure) {
    super(
      reason === 'no_key'
        ? 'AI_SECRETS_KEY is not set'
        : reason === 'unknown_key'
          ? 'sealed with a key that is neither AI_SECRETS_KEY nor AI_SECRETS_KEY_PREVIOUS'
          : 'the sealed secret is damaged or was moved to another record',
    );
    this.name = 'SecretUnsealError';
  }
}

/** A key and its short public fingerprint (which key sealed a secret, without saying anything about the key). */
interface KeyEntry {
  id: string;
  key: Buffer;
}

/**
 * Seals secrets at rest: AES-256-GCM with Node's crypto, a random 96-bit nonce per encryption, and
 * the record the secret belongs to as additional authenticated data, so a sealed key copied onto
 * another configuration does not open. Sealed form:
 * `v1.<key id>.<nonce>.<ciphertext>.<tag>` (base64url parts). The key id is a fingerprint of the key
 * (first 8 bytes of a SHA-256 of it, domain-separated), so a rotation knows which key sealed what.
 *
 * `current` (AI_SECRETS_KEY) seals and opens; `previous` (AI_SECRETS_KEY_PREVIOUS) only opens, during a
 * rotation, until `npm run ai:reencrypt-secrets` has resealed everything with the current key.
 * Neither the keys nor the clear text ever appear in an error or a log.
 */
export class SecretCipher {
  private readonly current: KeyEntry | null;
  private readonly previous: KeyEntry | null;

  constructor(current: Buffer | undefined, previous?: Buffer) {
    this.current = current ? keyEntry(current) : null;
    this.previous = previous ? keyEntry(previous) : null;
  }

  /** A current key is configured: secrets can be sealed. */
  get canSeal(): boolean {
    return this.current !== null;
  }

  seal(plain: string, context: string): string {
    if (!this.current) throw new SecretUnsealError('no_key');
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.current.key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      FORMAT,
      this.current.id,
      nonce.toString('base64url'),
      ciphertext.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ].join('.');
  }

  /** The clear text; throws SecretUnsealError (never with the secret or the key in it). */
  open(sealed: string, context: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== FORMAT) throw new SecretUnsealError('corrupt');
    const [, keyId, nonce, ciphertext, tag] = parts;
    if (!this.current && !this.previous) throw new SecretUnsealError('no_key');
    const entry = [this.current, this.previous].find((candidate) => candidate?.id === keyId);
    if (!entry) throw new SecretUnsealError('unknown_key');
    try {
      const decipher = createDecipheriv(ALGORITHM, entry.key, Buffer.from(nonce, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnsealError('corrupt');
    }
  }

  /** The secret was sealed with another key than the current one (a rotation should reseal it). */
  isStale(sealed: string): boolean {
    return this.current !== null && sealed.split('.')[1] !== this.current.id;
  }
}

function keyEntry(key: Buffer): KeyEntry {
  if (key.length !== 32) throw new Error('A secrets key must be 32 bytes');
  return {
    id: createHash('sha256')
      .update('graph-ai secrets key id\0')
      .update(key)
      .digest()
      .subarray(0, 8)
      .toString('base64url'),
    key,
  };
}
