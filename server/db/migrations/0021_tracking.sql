-- Usage tracking (spec workspace.md section 7 'Tracking'): page views and time on page. No raw IP
-- address is stored, only its network prefix (IPv4 /24, IPv6 /48); nothing at all for a browser
-- that sends Do Not Track or Global Privacy Control. Rows older than TRACKING_RETENTION_DAYS are
-- deleted. `day` is the UTC day of created_at, kept as a column so the analytics page's per-day
-- queries read indexes.

create table page_views (
  id bigserial primary key,
  service text not null,
  page text not null,
  client_id text not null,
  -- The server's session: a client's views less than 30 minutes apart share it.
  session_key text not null,
  view_id text,
  ip_prefix text,
  country text,
  browser text,
  created_at timestamptz not null default now(),
  day date not null
);

create index page_views_day on page_views (day);
create index page_views_day_page on page_views (day, page);
create index page_views_client on page_views (client_id, created_at desc);

-- Time on page: one row per page view (view_id), growing while the page stays open (the socket's
-- 30-second messages) up to the time sent on leaving; the longest report counts.
create table page_times (
  view_id text primary key,
  service text not null,
  page text not null,
  seconds double precision not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  day date not null
);

create index page_times_day_page on page_times (day, page);
create index page_times_updated on page_times (updated_at);
