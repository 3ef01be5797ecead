-- Accounts: users, roles and sessions are ready for registration, verification and approval.
create table roles (
  id serial primary key,
  name text not null unique
);

insert into roles (name) values ('admin'), ('user');

create table users (
  id bigserial primary key,
  name text not null,
  email text not null,
  password_hash text,
  email_verified boolean not null default false,
  is_approved boolean not null default false,
  dob date,
  image_url text,
  provided_timezone text,
  custom_ibmq_token text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create unique index users_email_lower on users (lower(email));

create table user_roles (
  user_id bigint not null references users (id) on delete cascade,
  role_id integer not null references roles (id) on delete cascade,
  primary key (user_id, role_id)
);

-- One row per sign-in; an access token names its session, so revoking the row revokes the token.
create table sessions (
  id uuid primary key,
  user_id bigint not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);

create index sessions_user on sessions (user_id);

-- Jobs: every run (diagnostic or training) goes through one lifecycle:
-- queued -> running -> Completed | Failed | Manual Stop.
create table jobs (
  id bigserial primary key,
  kind text not null,
  owner_id bigint not null references users (id) on delete cascade,
  status text not null default 'queued',
  params jsonb not null default '{}'::jsonb,
  result jsonb,
  error text,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  execution_time double precision
);

create index jobs_owner on jobs (owner_id, id desc);

-- Everything a job reported, in order: status changes (the timeline), progress, logs, metrics,
-- charts, artifacts, the result and errors.
create table job_events (
  id bigserial primary key,
  job_id bigint not null references jobs (id) on delete cascade,
  seq integer not null,
  type text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  unique (job_id, seq)
);

-- Mail that the embedded default keeps instead of sending (no SMTP_URL): admins can read it.
create table mail_outbox (
  id bigserial primary key,
  recipient text not null,
  subject text not null,
  body text not null,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);
