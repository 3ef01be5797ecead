/** The comparison's tabs, in the spec's order (platform-shell, landing section). */
export const VIEWS = [
  { id: 'training-data', title: 'Training Data' },
  { id: 'losses', title: 'Training and Test Losses' },
  { id: 'confusion', title: 'Confusion Matrix' },
] as const;
export type View = (typeof VIEWS)[number]['id'];

/** Spec platform-shell, landing section: plot tabs open on the first for these problems. */
const FIRST_TAB_PROBLEMS = new Set(['portfolio-optimization', 'fraud-detection']);

/** The tab a problem's comparison opens on: Confusion Matrix (index 2) unless the spec says the first. */
export function defaultView(problemId: string | null): View {
  return problemId && FIRST_TAB_PROBLEMS.has(problemId) ? VIEWS[0].id : VIEWS[2].id;
}
