// The check that a text states no number its facts do not: used on every report the engine writes
// (tests) and on a language model's answer before it is shown.

import type { FactSet } from './facts';

// A number standing on its own: not part of a word or identifier (F1, R2, fake_kyiv, a hash).
const NUMBER = /(?<![\p{L}\p{N}_.])\d[\d,]*(?:\.\d+)?(?![\p{L}\p{N}_])/gu;

const normalise = (token: string) => token.replace(/,+$/, '').replace(/,/g, '');

/** The numbers a text states, as written (thousands separators removed). */
export function numbersIn(text: string): string[] {
  return [...text.matchAll(NUMBER)].map((match) => normalise(match[0]));
}

/** Every number the facts' texts show: the only numbers a report may state. */
export function factNumbers(facts: FactSet): Set<string> {
  const known = new Set<string>();
  for (const fact of facts.values()) for (const token of numbersIn(fact.text)) known.add(token);
  return known;
}

/** The numbers of `text` that are not among the facts (empty: the text is grounded). */
export function ungroundedNumbers(text: string, facts: FactSet): string[] {
  const known = factNumbers(facts);
  return [...new Set(numbersIn(text).filter((token) => !known.has(token)))];
}
