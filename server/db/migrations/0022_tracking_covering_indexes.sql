-- The analytics page counts distinct visitors and sessions per day and per page: indexes that hold
-- those columns in day order let PostgreSQL read them without touching the table rows.
create index page_views_day_client on page_views (day, client_id);
create index page_views_day_session on page_views (day, session_key);
create index page_views_day_page_client on page_views (day, page, client_id);
drop index page_views_day_page;
create index page_times_day_page_seconds on page_times (day, page, seconds);
drop index page_times_day_page;
