import type { ApplicationSummary } from '../../api/applications';

/** Spec platform-shell.md section 9: the Show select's sizes; -1 is All. */
export const PAGE_SIZES = [5, 10, 20, -1] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export const DEFAULT_PAGE_SIZE: PageSize = 5;
/** Section 9: the pagination shows a window of 4 page numbers plus First and Last. */
export const PAGE_WINDOW = 4;
/** Section 9: the delete banner hides after 5 s and the list refreshes 5 s after a deletion. */
export const BANNER_MS = 5000;
export const REFRESH_AFTER_DELETE_MS = 5000;

/** Section 2: the brain tumor tab holds the applications whose problem name is 'brain tumor'. */
export const isBrainTumor = (app: Pick<ApplicationSummary, 'app_problem'>): boolean =>
  app.app_problem.name.trim().toLowerCase() === 'brain tumor';

export type DashboardTab = 'financial' | 'brain-tumor';

/** The applications of a tab: brain tumor ones only in their own tab, never in the main list. */
export const applicationsOfTab = (apps: ApplicationSummary[], tab: DashboardTab): ApplicationSummary[] =>
  apps.filter((app) => isBrainTumor(app) === (tab === 'brain-tumor'));

/** Section 5: the search matches the id or the name, case-insensitive. */
export function matchesSearch(app: Pick<ApplicationSummary, 'id' | 'app_name'>, query: string): boolean {
  const wanted = query.trim().toLowerCase();
  if (!wanted) return true;
  return String(app.id).includes(wanted) || app.app_name.toLowerCase().includes(wanted);
}

/**
 * The page numbers (0-based) shown between First and Last: at most PAGE_WINDOW of them, keeping the
 * current page in the window (one page before it where there is room), clamped to the ends.
 */
export function pageWindow(pageIndex: number, pageCount: number, size: number = PAGE_WINDOW): number[] {
  const count = Math.min(size, Math.max(pageCount, 0));
  const start = Math.max(0, Math.min(pageIndex - 1, pageCount - count));
  return Array.from({ length: count }, (_, i) => start + i);
}
