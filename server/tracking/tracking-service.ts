// Usage tracking (spec workspace.md section 7 'Tracking'): page views with the spec's 5-second
// de-duplication and 30-minute sessions, time on page, the retention of events, and the analytics
// page's figures. Privacy: no third-party lookups (the server never asks anyone where an address
// is), no raw address stored (its network prefix), nothing stored for Do Not Track / GPC.

import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { RateLimiter, RateRule } from '../platform/rate-limiter';
import type { AnalyticsRange, TrackingRepository } from './tracking-repository';

export const DEDUPE_SECONDS = 5;
export const SESSION_MINUTES = 30;
/** Tracking calls one network may make per minute (a page sends one view and a time report or two). */
const PER_MINUTE = 120;
const PURGE_EVERY_MS = 60 * 60 * 1000;
/** A report longer than a day is a tab left open, not reading: capped there. */
const MAX_SECONDS = 24 * 60 * 60;

export interface PageViewBody {
  client_id: string;
  session_id: string;
  page: string;
  ip?: string | null;
  country?: string | null;
  city?: string | null;
  isp?: string | null;
  latitude?: number | string | null;
  longitude?: number | string | null;
  browser?: string | null;
  view_id?: string;
}

export interface TimeBody {
  page: string;
  timeSpent: number;
  view_id?: string;
}

export type Tracked =
  | { stored: true; deduplicated: false; session_id: string }
  | { stored: false; deduplicated: boolean; session_id: string | null };

export class TrackingService {
  private purgeTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repository: TrackingRepository,
    private readonly limiter: RateLimiter,
    private readonly options: { retentionDays: number; log: FastifyBaseLogger },
  ) {}

  /** Seconds to wait when the network has sent too many tracking calls this minute, else 0 (counted). */
  allow(ipPrefix: string | null): Promise<number> {
    const rules: RateRule[] = [
      { key: `tracking:${ipPrefix ?? 'unknown'}`, max: PER_MINUTE, windowMs: 60_000 },
    ];
    return this.limiter.attempt(rules);
  }

  /**
   * One page view. The body's ip, city, isp, latitude and longitude (which the original client
   * looked up with third parties) are accepted and dropped: the address is the connection's, kept as
   * its network prefix; only the country and the browser name are kept.
   */
  async pageView(service: string, body: PageViewBody, ipPrefix: string | null): Promise<Tracked> {
    const saved = await this.repository.recordView(
      {
        service,
        page: body.page,
        clientId: body.client_id,
        sessionId: body.session_id,
        viewId: body.view_id ?? null,
        ipPrefix,
        country: body.country ?? null,
        browser: body.browser ?? null,
      },
      { dedupeSeconds: DEDUPE_SECONDS, sessionMinutes: SESSION_MINUTES, newSessionKey: randomUUID() },
    );
    if (!saved) return { stored: false, deduplicated: true, session_id: null };
    return { stored: true, deduplicated: false, session_id: saved.session_key };
  }

  /** Time on a page; without a view id (a client that sends none) each report is its own view. */
  async time(service: string, body: TimeBody, viewKey?: string): Promise<void> {
    await this.repository.recordTime({
      viewId: body.view_id ?? viewKey ?? randomUUID(),
      service,
      page: body.page,
      seconds: Math.min(body.timeSpent, MAX_SECONDS),
    });
  }

  async analytics(range: AnalyticsRange) {
    const [days, totals, top, time] = await Promise.all([
      this.repository.viewsPerDay(range),
      this.repository.totals(range),
      this.repository.topPages(range, 10),
      this.repository.timeOnPage(range, 10),
    ]);
    return {
      from: range.from,
      to: range.to,
      totals: { ...totals, median_seconds: time.median_seconds },
      days,
      top_pages: top,
      time_on_page: time.pages,
      retention_days: this.options.retentionDays,
    };
  }

  /** Deletes events past the retention now, then every hour (the timer does not hold the process open). */
  startPurging(): void {
    const purge = () =>
      this.repository
        .purgeOlderThan(this.options.retentionDays)
        .then((gone) => {
          if (gone.views + gone.times > 0)
            this.options.log.info(gone, 'tracking events past retention deleted');
        })
        .catch((error: unknown) => this.options.log.warn({ err: error }, 'tracking purge failed'));
    void purge();
    this.purgeTimer = setInterval(() => void purge(), PURGE_EVERY_MS);
    this.purgeTimer.unref();
  }

  close(): void {
    if (this.purgeTimer) clearInterval(this.purgeTimer);
  }
}
