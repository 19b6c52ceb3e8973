import { randomBytes } from 'node:crypto';
import { SecretCipher, SecretUnsealError } from './secret.cipher';

const reasonOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    return error instanceof SecretUnsealError ? error.reason : `other: ${String(error)}`;
  }
  return undefined;
};

describe(SecretCipher.name, () => {
  const key = randomBytes(32);
  const cipher = new SecretCipher(key);
  const secret = 'sk-live-0123456789abcdef';

  it('seals with AES-256-GCM and opens back, with a fresh nonce every time and no clear text in the sealed form', () => {
    const first = cipher.seal(secret, 'provider-config:ws:pc_1');
    const second = cipher.seal(secret, 'provider-config:ws:pc_1');
    expect(first).not.toBe(second);
    expect(first.split('.')[2]).not.toBe(second.split('.')[2]);
    expect(first).not.toContain(secret);
    expect(first).not.toContain(Buffer.from(secret).toString('base64'));
    expect(first).toMatch(/^v1\.[\w-]+\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expect(cipher.open(first, 'provider-config:ws:pc_1')).toBe(secret);
    expect(cipher.open(second, 'provider-config:ws:pc_1')).toBe(secret);
  });

  it('opens a sealed secret on its own record only (the record is authenticated data)', () => {
    const sealed = cipher.seal(secret, 'provider-config:ws:pc_1');
    expect(reasonOf(() => cipher.open(sealed, 'provider-config:ws:pc_2'))).toBe('corrupt');
    expect(reasonOf(() => cipher.open(sealed, 'provider-config:other:pc_1'))).toBe('corrupt');
  });

  it('refuses a tampered ciphertext, nonce or tag', () => {
    const sealed = cipher.seal(secret, 'ctx');
    const parts = sealed.split('.');
    for (const index of [2, 3, 4]) {
      const bytes = Buffer.from(parts[index], 'base64url');
      bytes[0] ^= 1;
      const tampered = [...parts.slice(0, index), bytes.toString('base64url'), ...parts.slice(index + 1)].join('.');
      expect(reasonOf(() => cipher.open(tampered, 'ctx'))).toBe('corrupt');
    }
    expect(reasonOf(() => cipher.open('not-sealed', 'ctx'))).toBe('corrupt');
  });

  it('opens with the previous key during a rotation, seals with the current one, and says which secrets are stale', () => {
    const sealedWithOld = cipher.seal(secret, 'ctx');
    const rotated = new SecretCipher(randomBytes(32), key);
    expect(rotated.open(sealedWithOld, 'ctx')).toBe(secret);
    expect(rotated.isStale(sealedWithOld)).toBe(true);
    const resealed = rotated.seal(secret, 'ctx');
    expect(rotated.isStale(resealed)).toBe(false);
    expect(reasonOf(() => cipher.open(resealed, 'ctx'))).toBe('unknown_key');
  });

  it('without a key seals nothing and says so; never shows the secret or the key in its errors', () => {
    const sealed = cipher.seal(secret, 'ctx');
    const keyless = new SecretCipher(undefined);
    expect(keyless.canSeal).toBe(false);
    expect(reasonOf(() => keyless.seal(secret, 'ctx'))).toBe('no_key');
    expect(reasonOf(() => keyless.open(sealed, 'ctx'))).toBe('no_key');
    const stranger = new SecretCipher(randomBytes(32));
    try {
      stranger.open(sealed, 'ctx');
    } catch (error) {
      const text = `${(error as Error).message} ${JSON.stringify(error)}`;
      expect(text).not.toContain(secret);
      expect(text).not.toContain(key.toString('base64'));
    }
  });
});
