-- The landing demo's stock models: one trained model per symbol and model kind, trained once through
-- the job queue on the symbol's shipped history and reused by every prediction.

-- Their jobs need an owner: an account that cannot sign in (no password, disabled) and holds no role.
insert into users (name, email, password_hash, email_verified, is_approved, disabled_at)
select 'landing-demo', 'landing-demo@qmlstudio.invalid', null, false, false, now()
where not exists (select 1 from users where lower(email) = 'landing-demo@qmlstudio.invalid');

create table stock_demo_models (
  symbol text not null,
  model_kind text not null check (model_kind in ('classical', 'quantum')),
  -- The training job; its output directory holds the model. Null while a submission is being made.
  job_id bigint references jobs (id) on delete set null,
  -- The sha256 of the history it was trained on: new data means a new model.
  data_sha256 text not null,
  requested_at timestamptz not null default now(),
  primary key (symbol, model_kind)
);
