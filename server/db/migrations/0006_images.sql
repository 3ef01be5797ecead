-- Uploaded images (avatars): the file lives under DATA_DIR/images/<name>; the row says who sent it,
-- what it is (by content, not by the name it came with) and the optional description.
create table images (
  name text primary key,
  user_id bigint references users (id) on delete set null,
  content_type text not null,
  byte_size integer not null,
  description text,
  created_at timestamptz not null default now()
);

create index images_user on images (user_id);
