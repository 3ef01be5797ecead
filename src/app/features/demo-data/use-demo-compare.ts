import { useEffect, useState } from 'react';
import { ApiError } from '../../api/client';
import { getExamples, type Example } from '../../api/get-examples';
import { getDemoCompare, type DemoCompare } from './api/get-demo-compare';

export type DemoState =
  | { status: 'loading' }
  /** No demo data exported yet (404): the sections say the comparison comes after real runs. */
  | { status: 'missing' }
  | { status: 'failed' }
  | { status: 'ready'; data: DemoCompare };

/** The example problems (tabs of the demo sections), from GET /api/examples. */
export function useExampleProblems(): Pick<Example, 'problem_id' | 'problem_name'>[] | null {
  const [problems, setProblems] = useState<Pick<Example, 'problem_id' | 'problem_name'>[] | null>(null);
  useEffect(() => {
    let cancelled = false;
    getExamples()
      .then((examples) => !cancelled && setProblems(examples))
      .catch(() => !cancelled && setProblems([]));
    return () => {
      cancelled = true;
    };
  }, []);
  return problems;
}

/** The compared outputs of one example problem (cached, revalidated on every view). */
export function useDemoCompare(problemId: string | null): DemoState {
  // Kept with the problem it answers: another problem shows 'loading' until its own answer arrives.
  const [answer, setAnswer] = useState<{ problemId: string; state: DemoState } | null>(null);
  useEffect(() => {
    if (!problemId) return;
    let cancelled = false;
    const settle = (state: DemoState) => !cancelled && setAnswer({ problemId, state });
    getDemoCompare(problemId)
      .then(({ body }) => settle({ status: 'ready', data: body.data }))
      .catch((error: unknown) =>
        settle(
          error instanceof ApiError && error.status === 404 ? { status: 'missing' } : { status: 'failed' },
        ),
      );
    return () => {
      cancelled = true;
    };
  }, [problemId]);
  return answer && answer.problemId === problemId ? answer.state : { status: 'loading' };
}

/**
 * A demo section's picked example problem (the first one until the user picks another) and its
 * compared outputs; with no example problems at all the section is 'missing'.
 */
export function usePickedDemo(): {
  problems: Pick<Example, 'problem_id' | 'problem_name'>[] | null;
  problemId: string | null;
  pick: (problemId: string) => void;
  state: DemoState;
} {
  const problems = useExampleProblems();
  const [picked, setPicked] = useState<string | null>(null);
  const problemId = picked ?? problems?.[0]?.problem_id ?? null;
  const loaded = useDemoCompare(problemId);
  const state: DemoState = problems && problems.length === 0 ? { status: 'missing' } : loaded;
  return { problems, problemId, pick: setPicked, state };
}
