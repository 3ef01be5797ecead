import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Encrypts the quantum-provider token at rest: AES-256-GCM with a random 96-bit IV per value, so
 * the database holds neither the token nor anything equal for equal tokens, and a changed value
 * fails to decrypt instead of decrypting to something else. Stored as "v1.<iv>.<tag>.<ciphertext>"
 * (base64url parts); the key is TOKEN_ENCRYPTION_KEY or the one generated into DATA_DIR.
 */
export class TokenCipher {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('The token encryption key must be 32 bytes');
    this.key = key;
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join(
      '.',
    );
  }

  /** The plaintext, or null when the value was not written with this key (or was altered). */
  decrypt(stored: string): string | null {
    const [version, iv, tag, body] = stored.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return null;
    }
  }
}

/** TOKEN_ENCRYPTION_KEY's form: 32 bytes in base64 (or base64url). */
export function parseTokenKey(text: string): Buffer | null {
  const key = Buffer.from(text.trim(), 'base64');
  return key.length === 32 ? key : null;
}
