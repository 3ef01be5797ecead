-- Applications: a user's configured problem (spec platform-shell.md section 3). app_problem_id is
-- the problem file's id (schemas/problems/<id>.json); app_data is what the workspace edits, checked
-- by the schema engine before it is stored. created_at and updated_at are the server's.
create table applications (
  id bigserial primary key,
  user_id bigint not null references users (id) on delete cascade,
  app_name text not null,
  app_problem_id text not null,
  status text not null default 'active',
  app_data jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index applications_user on applications (user_id, id desc);

-- An application's outputs are the jobs that ran it; deleting the application deletes them.
alter table jobs add column application_id bigint references applications (id) on delete cascade;

create index jobs_application on jobs (application_id, id desc);
