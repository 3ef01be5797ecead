-- The landing page's example runs: on the first start the server runs each example application in
-- the background under the landing-demo account (migration 0020) and the landing page shows their
-- outputs. A job's queue priority lets those runs wait behind every user's job, also after a restart.
alter table jobs add column queue_priority integer not null default 0;

create table demo_results (
  problem_id text primary key,
  -- The sha256 of the example's definition (its problem file's example and the demo's settings):
  -- a changed example is run again.
  definition_sha256 text not null,
  application_id bigint references applications (id) on delete set null,
  job_id bigint references jobs (id) on delete set null,
  requested_at timestamptz not null default now()
);
