import {
  flexRender,
  getCoreRowModel,
  getPaginationRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type PaginationState,
  type SortingState,
} from '@tanstack/react-table';
import { useCallback, useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { formatTimestamp } from '../../format/dates';
import { useAuth } from '../../session/auth-context';
import { listApplications, type ApplicationSummary } from '../../api/applications';
import '../../styles/application-lists.css';
import { CreateApplicationDialog } from './create-application-dialog';
import {
  applicationsOfTab,
  DEFAULT_PAGE_SIZE,
  matchesSearch,
  PAGE_SIZES,
  type DashboardTab,
  type PageSize,
} from './dashboard-rules';
import { useDeleteFlow } from './delete-flow';
import { Pagination } from './pagination';
import { RowMenu } from './row-menu';

export const NO_APPLICATIONS = 'No applications found';
export const SEARCH_PLACEHOLDER = 'Search Application by ID or Name';

const TABS: { id: DashboardTab; label: string }[] = [
  { id: 'financial', label: 'Financial Applications' },
  { id: 'brain-tumor', label: 'Brain Tumor application' },
];

type View = 'list' | 'grid';
const detailPath = (app: ApplicationSummary) => `/applications/${app.id}`;
const sizeLabel = (size: PageSize) => (size === -1 ? 'All' : String(size));

/**
 * The signed-in user's applications (spec platform-shell.md section 2, dashboard): tabs, list or grid,
 * Show, search, sortable columns, pagination, Create Application with its dialog, delete. Shown on
 * /profile ('My Applications') and on / for signed-in users ('All Applications').
 */
export function ApplicationsBrowser({ title = 'My Applications' }: { title?: string }) {
  const { user } = useAuth();
  const navigate = useNavigate();
  const [apps, setApps] = useState<ApplicationSummary[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [tab, setTab] = useState<DashboardTab>('financial');
  const [view, setView] = useState<View>('list');
  const [search, setSearch] = useState('');
  const [pageSize, setPageSize] = useState<PageSize>(DEFAULT_PAGE_SIZE);
  const [pageIndex, setPageIndex] = useState(0);
  const [sorting, setSorting] = useState<SortingState>([{ id: 'id', desc: true }]);
  const [creating, setCreating] = useState(false);
  const userId = user?.id;

  const load = useCallback(async () => {
    if (userId === undefined) return;
    try {
      setApps(await listApplications(userId));
      setLoadError(null);
    } catch (error) {
      // The client's message is section 8's 'Get applications failed' with the server's detail.
      setLoadError(error instanceof Error ? error.message : String(error));
    }
  }, [userId]);
  useEffect(() => {
    void load();
  }, [load]);

  const dropDeleted = useCallback(
    (appId: number) => setApps((shown) => shown?.filter((app) => app.id !== appId) ?? null),
    [],
  );
  const refresh = useCallback(() => void load(), [load]);
  const { ask: askDelete, view: deleteView } = useDeleteFlow(userId, dropDeleted, refresh);

  const rows = useMemo(
    () => applicationsOfTab(apps ?? [], tab).filter((app) => matchesSearch(app, search)),
    [apps, tab, search],
  );

  const columns = useMemo<ColumnDef<ApplicationSummary>[]>(
    () => [
      { id: 'id', header: 'Application ID', accessorKey: 'id' },
      {
        id: 'problem',
        header: 'Application Problem',
        accessorFn: (app) => app.app_problem.name,
        sortingFn: 'text',
      },
      {
        id: 'name',
        header: 'Application Name',
        accessorKey: 'app_name',
        sortingFn: 'text',
        cell: ({ row }) => (
          <Link to={detailPath(row.original)} onClick={(event) => event.stopPropagation()}>
            {row.original.app_name}
          </Link>
        ),
      },
      {
        id: 'created',
        header: 'Created Date',
        accessorKey: 'created_at',
        sortingFn: 'basic',
        cell: ({ row }) => formatTimestamp(row.original.created_at, 'date'),
      },
      {
        id: 'updated',
        header: 'Updated Date',
        accessorKey: 'updated_at',
        sortingFn: 'basic',
        cell: ({ row }) => formatTimestamp(row.original.updated_at, 'date'),
      },
      {
        id: 'actions',
        header: 'Actions',
        enableSorting: false,
        cell: ({ row }) => (
          <RowMenu appName={row.original.app_name} onDelete={() => askDelete(row.original)} />
        ),
      },
    ],
    [askDelete],
  );

  const pagination: PaginationState = {
    pageIndex,
    pageSize: pageSize === -1 ? Math.max(rows.length, 1) : pageSize,
  };
  // The table instance is read afresh on every render (this component is not compiler-memoized).
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: rows,
    columns,
    state: { sorting, pagination },
    onSortingChange: setSorting,
    // Section 2: a column's first click sorts it ascending, the next descending, and so on.
    enableSortingRemoval: false,
    sortDescFirst: false,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getPaginationRowModel: getPaginationRowModel(),
    autoResetPageIndex: false,
  });
  const pageCount = table.getPageCount();
  // A page beyond the end (after a deletion or a narrower search) shows the last one instead.
  useEffect(() => {
    if (pageIndex > 0 && pageIndex >= pageCount) setPageIndex(Math.max(pageCount - 1, 0));
  }, [pageIndex, pageCount]);

  const open = (app: ApplicationSummary) => navigate(detailPath(app));
  const openByKey = (app: ApplicationSummary) => (event: KeyboardEvent) => {
    if (event.target !== event.currentTarget) return;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      open(app);
    }
  };
  const pageRows = table.getRowModel().rows;

  return (
    <section className="applications-browser" aria-labelledby="applications-title">
      <div className="applications-head">
        <h2 id="applications-title">{title}</h2>
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          Create Application
        </button>
      </div>
      <div className="tabs" role="tablist" aria-label="Application groups">
        {TABS.map(({ id, label }) => (
          <button
            key={id}
            type="button"
            role="tab"
            id={`apps-tab-${id}`}
            aria-selected={tab === id}
            aria-controls="apps-panel"
            className={tab === id ? 'tab active' : 'tab'}
            onClick={() => {
              setTab(id);
              setPageIndex(0);
            }}
          >
            {label}
          </button>
        ))}
      </div>
      <div className="applications-toolbar">
        <div className="view-toggle" role="group" aria-label="View">
          {(['list', 'grid'] as const).map((mode) => (
            <button
              key={mode}
              type="button"
              aria-pressed={view === mode}
              className={view === mode ? 'active' : undefined}
              onClick={() => setView(mode)}
            >
              {mode === 'list' ? 'List' : 'Grid'}
            </button>
          ))}
        </div>
        <label className="page-size">
          Show
          <select
            value={pageSize}
            onChange={(event) => {
              setPageSize(Number(event.target.value) as PageSize);
              setPageIndex(0);
            }}
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {sizeLabel(size)}
              </option>
            ))}
          </select>
        </label>
        <input
          type="search"
          className="applications-search"
          aria-label="Search applications"
          placeholder={SEARCH_PLACEHOLDER}
          value={search}
          onChange={(event) => {
            setSearch(event.target.value);
            setPageIndex(0);
          }}
        />
      </div>
      {deleteView}
      <div id="apps-panel" role="tabpanel" aria-labelledby={`apps-tab-${tab}`}>
        {loadError ? (
          <p className="form-error load-error" role="alert">
            {loadError}
          </p>
        ) : apps === null ? (
          <p className="muted">Loading…</p>
        ) : view === 'list' ? (
          <div className="applications-table-wrap">
            <table className="applications-table">
              <thead>
                {table.getHeaderGroups().map((group) => (
                  <tr key={group.id}>
                    {group.headers.map((header) => {
                      const sorted = header.column.getIsSorted();
                      const label = flexRender(header.column.columnDef.header, header.getContext());
                      return (
                        <th
                          key={header.id}
                          aria-sort={
                            sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined
                          }
                        >
                          {header.column.getCanSort() ? (
                            <button
                              type="button"
                              className="sort-button"
                              onClick={header.column.getToggleSortingHandler()}
                            >
                              {label}
                              <span className="sort-mark" aria-hidden="true">
                                {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}
                              </span>
                            </button>
                          ) : (
                            label
                          )}
                        </th>
                      );
                    })}
                  </tr>
                ))}
              </thead>
              <tbody>
                {pageRows.length === 0 ? (
                  <tr>
                    <td colSpan={columns.length} className="empty-cell">
                      {NO_APPLICATIONS}
                    </td>
                  </tr>
                ) : (
                  pageRows.map((row) => (
                    <tr key={row.id} className="clickable" onClick={() => open(row.original)}>
                      {row.getVisibleCells().map((cell) => (
                        <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
                      ))}
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </div>
        ) : pageRows.length === 0 ? (
          <p className="card empty-state">{NO_APPLICATIONS}</p>
        ) : (
          <ul className="applications-grid">
            {pageRows.map(({ original: app }) => (
              <li
                key={app.id}
                className="card application-card clickable"
                tabIndex={0}
                aria-label={`${app.app_name}, ${app.app_problem.name}, ID ${app.id}`}
                onClick={() => open(app)}
                onKeyDown={openByKey(app)}
              >
                <div className="application-card-head">
                  <span className="application-card-id">#{app.id}</span>
                  <RowMenu appName={app.app_name} onDelete={() => askDelete(app)} />
                </div>
                <h3>{app.app_name}</h3>
                <p className="muted">{app.app_problem.name}</p>
                <dl>
                  <dt>Created</dt>
                  <dd>{formatTimestamp(app.created_at, 'date')}</dd>
                  <dt>Updated</dt>
                  <dd>{formatTimestamp(app.updated_at, 'date')}</dd>
                </dl>
              </li>
            ))}
          </ul>
        )}
        {apps !== null && !loadError && (
          <div className="applications-footer">
            <p className="muted">
              {rows.length === 0
                ? ''
                : `Showing ${pageIndex * pagination.pageSize + 1}–${Math.min(
                    (pageIndex + 1) * pagination.pageSize,
                    rows.length,
                  )} of ${rows.length}`}
            </p>
            <Pagination pageIndex={pageIndex} pageCount={pageCount} onPage={setPageIndex} />
          </div>
        )}
      </div>
      {creating && <CreateApplicationDialog applications={apps ?? []} onClose={() => setCreating(false)} />}
    </section>
  );
}
