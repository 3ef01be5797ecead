-- Messages sent with the contact form (/contact): kept here and mailed to every admin.
create table contact_messages (
  id bigserial primary key,
  user_id bigint references users (id) on delete set null,
  name text not null,
  email text not null,
  message text not null,
  created_at timestamptz not null default now()
);

create index contact_messages_user on contact_messages (user_id, id desc);
