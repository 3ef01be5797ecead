// A fact is one thing an output's result says, with the exact text a report may show for it. Reports
// are written only from these texts, so every number a reader sees is one of them.

export type FactValue = number | string | boolean;

/**
 * How a number is shown: 'decimal' 4 significant digits, 'integer', 'percent' (value in %) and 'ratio'
 * (0..1 as %) 3 significant digits.
 */
export type NumberFormat = 'decimal' | 'integer' | 'percent' | 'ratio';

export interface Fact {
  key: string;
  value: FactValue;
  /** What a report prints for it. */
  text: string;
}

export type FactSet = Map<string, Fact>;

const grouped = (value: number, fractionDigits: number) =>
  value.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: fractionDigits });

/** The one way a number becomes text in a report. */
export function formatNumber(value: number, format: NumberFormat): string {
  if (!Number.isFinite(value)) return String(value);
  switch (format) {
    case 'integer':
      return grouped(Math.round(value), 0);
    // three significant digits: 1.43%, 31.7%, 0.494% (a one-decimal 1.4% hides a 0.1-point change)
    case 'percent':
      return `${grouped(Number(value.toPrecision(3)), 12)}%`;
    case 'ratio':
      return `${grouped(Number((value * 100).toPrecision(3)), 12)}%`;
    case 'decimal': {
      if (value === 0) return '0';
      // large values read better whole; small ones keep 4 significant digits
      if (Math.abs(value) >= 1000) return grouped(Math.round(value), 0);
      return grouped(Number(value.toPrecision(4)), 12);
    }
  }
}

/** Collects facts; a later value of the same key replaces the earlier. */
export class FactBuilder {
  readonly facts: FactSet = new Map();

  number(key: string, value: number | null | undefined, format: NumberFormat = 'decimal'): void {
    if (typeof value !== 'number' || !Number.isFinite(value)) return;
    this.facts.set(key, { key, value, text: formatNumber(value, format) });
  }

  text(key: string, value: string | null | undefined): void {
    if (typeof value !== 'string' || value === '') return;
    this.facts.set(key, { key, value, text: value });
  }

  /** Text a sentence may carry or not: '' is a fact too (a single run's empty scope of its counts). */
  affix(key: string, value: string): void {
    this.facts.set(key, { key, value, text: value });
  }

  flag(key: string, value: boolean | null | undefined): void {
    if (typeof value !== 'boolean') return;
    this.facts.set(key, { key, value, text: value ? 'yes' : 'no' });
  }
}

/** The facts of a comparison: run A's under 'a.', run B's under 'b.', and the comparison's own. */
export function prefixed(prefix: string, facts: FactSet): FactSet {
  return new Map([...facts].map(([key, fact]) => [`${prefix}${key}`, { ...fact, key: `${prefix}${key}` }]));
}
