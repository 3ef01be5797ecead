import { jwtVerify, SignJWT } from 'jose';

export interface AccessTokenClaims {
  userId: number;
  sessionId: string;
}

/** Verified tokens remembered (a token string always verifies the same way until it expires). */
const MAX_REMEMBERED = 10_000;

/** Signs and checks bearer access tokens (HS256); each names the session it belongs to. */
export class AccessTokens {
  private readonly key: Uint8Array;
  /** token -> its claims and expiry (ms): every request of a client sends the same token. */
  private readonly verified = new Map<string, { claims: AccessTokenClaims; expiresAt: number }>();

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  get lifetimeSeconds(): number {
    return this.ttlSeconds;
  }

  sign(claims: AccessTokenClaims): Promise<string> {
    return new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(claims.userId))
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.key);
  }

  /** The claims of a valid, unexpired token, or null. (Whether its session still holds is the caller's.) */
  async verify(token: string): Promise<AccessTokenClaims | null> {
    const known = this.verified.get(token);
    if (known) {
      if (known.expiresAt > Date.now()) return known.claims;
      this.verified.delete(token);
    }
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      const userId = Number(payload.sub);
      if (!Number.isInteger(userId) || typeof payload.sid !== 'string' || typeof payload.exp !== 'number')
        return null;
      const claims = { userId, sessionId: payload.sid };
      if (this.verified.size >= MAX_REMEMBERED) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, { claims, expiresAt: payload.exp * 1000 });
      return claims;
    } catch {
      return null;
    }
  }
}
