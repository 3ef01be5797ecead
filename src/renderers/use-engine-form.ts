import { useCallback, useMemo, useState } from 'react';

import {
  getFormState,
  precompileProblem,
  pruneAppData,
  type AppData,
  type EngineContext,
  type Problem,
} from '../engine';

/**
 * app_data of one problem held in React state, with the engine's state derived once per change
 * (validation, sections of both tabs, pipeline status) for every form, pipeline and preview that
 * shows it. Pass a stable `context`.
 */
export function useEngineForm(
  problem: Problem,
  initialAppData: AppData | (() => AppData),
  context: EngineContext,
) {
  const [appData, setAppData] = useState<AppData>(() => {
    precompileProblem(problem);
    return typeof initialAppData === 'function' ? initialAppData() : initialAppData;
  });
  const state = useMemo(() => getFormState(problem, appData, context), [problem, appData, context]);
  const onChange = useCallback((next: AppData) => setAppData(next), []);
  const pruned = useCallback(() => pruneAppData(problem, appData), [problem, appData]);
  return { appData, setAppData, state, onChange, pruned };
}
