import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

/** Spec section 2 (landing application cards): each card is this wide ... */
export const CARD_WIDTH_PX = 400;
/** ... and Previous / Next scroll the row by this much. */
export const SCROLL_STEP_PX = 300;

/** Where one step from `current` lands, kept inside 0..max (the track's scrollable width). */
export function stepTarget(current: number, max: number, direction: -1 | 1, step = SCROLL_STEP_PX): number {
  return Math.min(Math.max(current + direction * step, 0), Math.max(max, 0));
}

const reducedMotion = () =>
  typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

/**
 * A horizontal row of cards with Previous / Next buttons. The row itself is focusable and the arrow
 * keys move it by the same step; the buttons are disabled at either end.
 */
export function Carousel({ label, children }: { label: string; children: ReactNode }) {
  const track = useRef<HTMLDivElement>(null);
  const [ends, setEnds] = useState({ atStart: true, atEnd: true });

  const measure = useCallback(() => {
    const row = track.current;
    if (!row) return;
    const max = row.scrollWidth - row.clientWidth;
    setEnds({ atStart: row.scrollLeft <= 1, atEnd: row.scrollLeft >= max - 1 });
  }, []);

  useEffect(() => {
    measure();
    window.addEventListener('resize', measure);
    return () => window.removeEventListener('resize', measure);
  }, [measure, children]);

  const move = (direction: -1 | 1) => {
    const row = track.current;
    if (!row) return;
    const left = stepTarget(row.scrollLeft, row.scrollWidth - row.clientWidth, direction);
    if (typeof row.scrollTo === 'function') {
      row.scrollTo({ left, behavior: reducedMotion() ? 'auto' : 'smooth' });
    } else {
      row.scrollLeft = left;
      measure();
    }
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.target !== event.currentTarget) return;
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      event.preventDefault();
      move(event.key === 'ArrowRight' ? 1 : -1);
    }
  };

  return (
    <div className="carousel">
      <div
        ref={track}
        className="carousel-track"
        role="region"
        aria-label={label}
        tabIndex={0}
        onScroll={measure}
        onKeyDown={onKeyDown}
      >
        <ul className="carousel-list" style={{ gridAutoColumns: `${CARD_WIDTH_PX}px` }}>
          {children}
        </ul>
      </div>
      <div className="carousel-controls">
        <button
          type="button"
          className="carousel-button"
          aria-label="Previous applications"
          disabled={ends.atStart}
          onClick={() => move(-1)}
        >
          <span aria-hidden="true">←</span>
        </button>
        <button
          type="button"
          className="carousel-button"
          aria-label="Next applications"
          disabled={ends.atEnd}
          onClick={() => move(1)}
        >
          <span aria-hidden="true">→</span>
        </button>
      </div>
    </div>
  );
}
