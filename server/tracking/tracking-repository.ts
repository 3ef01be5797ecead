import type { Database } from '../db/database';

export interface PageViewInput {
  service: string;
  page: string;
  clientId: string;
  sessionId: string;
  viewId: string | null;
  ipPrefix: string | null;
  country: string | null;
  browser: string | null;
}

export interface AnalyticsRange {
  from: string;
  to: string;
}

/** Page views and time on page: every SQL statement of tracking and of the analytics page. */
export class TrackingRepository {
  constructor(private readonly db: Database) {}

  /**
   * Records a view unless the same client saw the same page of the service within `dedupeSeconds`
   * (then null). The session continues the client's last one when that view is less than
   * `sessionMinutes` old, else it is the client's session id (or a new one if that id is already used
   * by an earlier session). Under a lock per client, so two concurrent copies cannot both pass the check.
   */
  async recordView(
    input: PageViewInput,
    rules: { dedupeSeconds: number; sessionMinutes: number; newSessionKey: string },
  ): Promise<{ id: number; session_key: string } | null> {
    return this.db.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`page_views:${input.clientId}`]);
      const { rows } = await tx.query<{ id: number; session_key: string }>(
        `with last as (
         select session_key, created_at, page, service from page_views
         where client_id = $3 order by created_at desc, id desc limit 1
       ), session as (
         select case
           when exists (select 1 from last where created_at > now() - make_interval(mins => $10)) then
             (select session_key from last)
           when exists (select 1 from page_views where client_id = $3 and session_key = $4) then $11
           else $4 end as key
       )
       insert into page_views (service, page, client_id, session_key, view_id, ip_prefix, country, browser, day)
       select $1, $2, $3, (select key from session), $5, $6, $7, $8, (now() at time zone 'utc')::date
       where not exists (
         select 1 from page_views
         where client_id = $3 and page = $2 and service = $1 and created_at > now() - make_interval(secs => $9)
       )
       returning id, session_key`,
        [
          input.service,
          input.page,
          input.clientId,
          input.sessionId,
          input.viewId,
          input.ipPrefix,
          input.country,
          input.browser,
          rules.dedupeSeconds,
          rules.sessionMinutes,
          rules.newSessionKey,
        ],
      );
      return rows[0] ?? null;
    });
  }

  /** Time on one page view: the longest report of it counts (reports grow while the page is open). */
  async recordTime(input: { viewId: string; service: string; page: string; seconds: number }): Promise<void> {
    await this.db.query(
      `insert into page_times (view_id, service, page, seconds, day)
       values ($1, $2, $3, $4, (now() at time zone 'utc')::date)
       on conflict (view_id) do update
         set seconds = greatest(page_times.seconds, excluded.seconds), updated_at = now()`,
      [input.viewId, input.service, input.page, input.seconds],
    );
  }

  /** Deletes events older than `days` days; the counts deleted. */
  async purgeOlderThan(days: number): Promise<{ views: number; times: number }> {
    const count = async (table: string, column: string) => {
      const { rows } = await this.db.query<{ n: number }>(
        `with gone as (delete from ${table} where ${column} < now() - make_interval(days => $1) returning 1)
         select count(*)::int as n from gone`,
        [days],
      );
      return rows[0]!.n;
    };
    return { views: await count('page_views', 'created_at'), times: await count('page_times', 'updated_at') };
  }

  async viewsPerDay(range: AnalyticsRange) {
    const { rows } = await this.db.query<{ day: string; views: number; visitors: number; sessions: number }>(
      `select to_char(day, 'YYYY-MM-DD') as day, count(*)::int as views,
              count(distinct client_id)::int as visitors, count(distinct session_key)::int as sessions
       from page_views where day between $1::date and $2::date group by day order by day`,
      [range.from, range.to],
    );
    return rows;
  }

  async totals(range: AnalyticsRange) {
    const { rows } = await this.db.query<{ views: number; visitors: number; sessions: number }>(
      `select count(*)::int as views, count(distinct client_id)::int as visitors,
              count(distinct session_key)::int as sessions
       from page_views where day between $1::date and $2::date`,
      [range.from, range.to],
    );
    return rows[0]!;
  }

  async topPages(range: AnalyticsRange, limit: number) {
    const { rows } = await this.db.query<{ page: string; views: number; visitors: number }>(
      `select page, count(*)::int as views, count(distinct client_id)::int as visitors
       from page_views where day between $1::date and $2::date
       group by page order by views desc, page limit $3`,
      [range.from, range.to, limit],
    );
    return rows;
  }

  async timeOnPage(range: AnalyticsRange, limit: number) {
    const { rows } = await this.db.query<{ page: string; views: number; median_seconds: number }>(
      `select page, count(*)::int as views,
              (percentile_cont(0.5) within group (order by seconds))::float8 as median_seconds
       from page_times where day between $1::date and $2::date
       group by page order by views desc, page limit $3`,
      [range.from, range.to, limit],
    );
    const overall = await this.db.query<{ median_seconds: number | null }>(
      `select (percentile_cont(0.5) within group (order by seconds))::float8 as median_seconds
       from page_times where day between $1::date and $2::date`,
      [range.from, range.to],
    );
    return { pages: rows, median_seconds: overall.rows[0]?.median_seconds ?? null };
  }
}
