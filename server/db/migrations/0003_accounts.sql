-- Accounts: e-mail verification, admin approval and rejection, disabling, encrypted provider tokens
-- and social sign-in identities.

-- The quantum-provider token is kept encrypted (AES-256-GCM, key from TOKEN_ENCRYPTION_KEY or
-- DATA_DIR/token-key); the plaintext column never held data and goes.
alter table users drop column custom_ibmq_token;
alter table users add column custom_ibmq_token_encrypted text;
alter table users add column approved_at timestamptz;
alter table users add column rejected_at timestamptz;
alter table users add column disabled_at timestamptz;
alter table users add column email_verified_at timestamptz;

-- Single-use, expiring e-mail verification links: only a hash of the token is stored.
create table email_verification_tokens (
  token_hash text primary key,
  user_id bigint not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);

create index email_verification_tokens_user on email_verification_tokens (user_id);

-- A social account linked to a user: one row per provider subject.
create table oauth_identities (
  provider text not null,
  subject text not null,
  user_id bigint not null references users (id) on delete cascade,
  email text,
  created_at timestamptz not null default now(),
  primary key (provider, subject)
);

create index oauth_identities_user on oauth_identities (user_id);

-- An authorization request in flight: state, PKCE verifier and where the browser goes back to.
create table oauth_states (
  state text primary key,
  provider text not null,
  code_verifier text not null,
  redirect_uri text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);

-- Mail kept by the embedded default carries what it is for (verification, approval, rejection).
alter table mail_outbox add column kind text;
