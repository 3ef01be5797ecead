import type { Queryable } from '../db/database';

/** Authorization requests in flight: one row per state, taken (deleted) by the callback that uses it. */
export class OAuthStatesRepository {
  constructor(private readonly db: Queryable) {}

  async create(input: {
    state: string;
    provider: string;
    codeVerifier: string;
    redirectUri: string;
    ttlSeconds: number;
  }): Promise<void> {
    // Requests never finished are dropped as new ones start.
    await this.db.query(`delete from oauth_states where expires_at < now()`);
    await this.db.query(
      `insert into oauth_states (state, provider, code_verifier, redirect_uri, expires_at)
       values ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [input.state, input.provider, input.codeVerifier, input.redirectUri, input.ttlSeconds],
    );
  }

  /** The request for this state and provider, once: a second callback with it finds nothing. */
  async take(state: string, provider: string): Promise<{ codeVerifier: string; redirectUri: string } | null> {
    const { rows } = await this.db.query<{ code_verifier: string; redirect_uri: string; live: boolean }>(
      `delete from oauth_states where state = $1 and provider = $2 returning code_verifier, redirect_uri,
         expires_at > now() as live`,
      [state, provider],
    );
    const row = rows[0];
    return row?.live ? { codeVerifier: row.code_verifier, redirectUri: row.redirect_uri } : null;
  }
}
