import { pageWindow } from './dashboard-rules';

/** Section 9: First, a window of 4 page numbers, Last. Pages are 0-based inside, shown from 1. */
export function Pagination({
  pageIndex,
  pageCount,
  onPage,
}: {
  pageIndex: number;
  pageCount: number;
  onPage: (index: number) => void;
}) {
  if (pageCount <= 1) return null;
  const last = pageCount - 1;
  return (
    <nav className="pagination" aria-label="Pagination">
      <button type="button" disabled={pageIndex === 0} onClick={() => onPage(0)}>
        First
      </button>
      {pageWindow(pageIndex, pageCount).map((index) => (
        <button
          key={index}
          type="button"
          className={index === pageIndex ? 'current' : undefined}
          aria-current={index === pageIndex ? 'page' : undefined}
          aria-label={`Page ${index + 1}`}
          onClick={() => onPage(index)}
        >
          {index + 1}
        </button>
      ))}
      <button type="button" disabled={pageIndex === last} onClick={() => onPage(last)}>
        Last
      </button>
    </nav>
  );
}
