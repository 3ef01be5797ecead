-- Datasets users upload (POST /api/upload/{userName}/{userEmail}): the file lives at
-- DATA_DIR/datasets/{owner_id}/{filename}; the row keeps what the server checked of it (size, sha256,
-- data rows without the header, the header's column names) so jobs and quotas need not reread it.
create table datasets (
  id bigserial primary key,
  owner_id bigint not null references users (id) on delete cascade,
  filename text not null unique,
  original_name text not null,
  size_bytes bigint not null check (size_bytes >= 0),
  sha256 text not null,
  row_count integer not null check (row_count >= 0),
  columns jsonb not null,
  created_at timestamptz not null default now()
);

create index datasets_owner on datasets (owner_id, id desc);
