import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../../api/client';
import { getExamples, type Example } from '../../api/get-examples';
import { getDemoCompare, type DemoCompare } from './api/get-demo-compare';

export type DemoState =
  | { status: 'loading' }
  /** No example run of this problem on the server (404): 'No plots available for {app}.' */
  | { status: 'missing' }
  | { status: 'failed' }
  | { status: 'ready'; data: DemoCompare };

/** While an example run is queued or running, its reply is asked for again this often (304 when unchanged). */
export const PENDING_POLL_MS = 5000;

const pending = (data: DemoCompare) =>
  data.outputs.some((output) => output.status === 'queued' || output.status === 'running');

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

/** The example run of one problem (cached, revalidated on every view and while it is under way). */
export function useDemoCompare(problemId: string | null): DemoState {
  // Kept with the problem it answers: another problem shows 'loading' until its own answer arrives.
  const [answer, setAnswer] = useState<{ problemId: string; state: DemoState } | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (!problemId) return;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (state: DemoState) => {
      if (cancelled) return;
      setAnswer({ problemId, state });
      if (state.status === 'ready' && pending(state.data)) {
        timer = setTimeout(() => setRound((n) => n + 1), PENDING_POLL_MS);
      }
    };
    getDemoCompare(problemId)
      .then(({ body }) => settle({ status: 'ready', data: body.data }))
      .catch((error: unknown) =>
        settle(
          error instanceof ApiError && error.status === 404 ? { status: 'missing' } : { status: 'failed' },
        ),
      );
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [problemId, round]);
  return answer && answer.problemId === problemId ? answer.state : { status: 'loading' };
}

/** Where a demo section keeps its picked example for the tab's session (by section). */
const pickedDemoKey = (section: string) => `qmlstudio.demo-pick.${section}`;

function storedPick(section: string): string | null {
  try {
    return sessionStorage.getItem(pickedDemoKey(section));
  } catch {
    return null; // storage refused (a privacy mode): the pick lasts as long as the section
  }
}

function storePick(section: string, problemId: string): void {
  try {
    sessionStorage.setItem(pickedDemoKey(section), problemId);
  } catch {
    // storage refused: the pick lasts as long as the section
  }
}

/**
 * A demo section's picked example problem (the first one until the user picks another) and its
 * example run; with no example problems at all the section is 'missing'. The pick is kept for the
 * tab's session: the section drawn again (a reload, coming back to the page) shows the same example.
 */
export function usePickedDemo(section: string): {
  problems: Pick<Example, 'problem_id' | 'problem_name'>[] | null;
  problemId: string | null;
  problemName: string;
  pick: (problemId: string) => void;
  state: DemoState;
} {
  const problems = useExampleProblems();
  const [picked, setPicked] = useState<string | null>(() => storedPick(section));
  // A kept pick of an example this server no longer has falls back to the first.
  const known = picked && problems?.some((problem) => problem.problem_id === picked) ? picked : null;
  const problemId = known ?? problems?.[0]?.problem_id ?? null;
  const problemName = problems?.find((problem) => problem.problem_id === problemId)?.problem_name ?? '';
  const loaded = useDemoCompare(problemId);
  const state: DemoState = problems && problems.length === 0 ? { status: 'missing' } : loaded;
  const pick = useCallback(
    (next: string) => {
      setPicked(next);
      storePick(section, next);
    },
    [section],
  );
  return { problems, problemId, problemName, pick, state };
}
