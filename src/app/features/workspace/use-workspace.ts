import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { pruneAppData, type AppData, type EngineContext, type Problem } from '../../../engine';
import { useEngineForm } from '../../../renderers';
import { useOptionalToast } from '../../components/toasts';
import { countOutputs, updateAppData, type ApplicationDetail } from '../../api/applications';
import { useRunApplication } from '../../api/use-run-application';
import { useDataset } from './dataset/csv-table';
import {
  BLOCKED_WARNING_MS,
  datasetFacts,
  GO_TO_OUTPUTS,
  LOGIN_TO_SAVE,
  SAVE_OK,
  sameFacts,
  saveFailureText,
  TAB,
  tabGate,
  type DatasetFacts,
} from './workspace-rules';
import type { WorkspaceUser } from './workspace-types';

/**
 * Everything one open workspace holds: app_data with the engine's state, whether it is unsaved, the open
 * tab (0 on every visit), the dataset, the engine context, Save, Run with its running flag (on until the output is final), the
 * outputs count and the key that makes the outputs list reload.
 */
export function useWorkspace(problem: Problem, app: ApplicationDetail, user: WorkspaceUser | null) {
  const notify = useOptionalToast();
  const [tab, setTab] = useState<number>(TAB.dataset);
  const [unsaved, setUnsaved] = useState(false);
  const [warning, setWarning] = useState<string | null>(null);
  const [outputCount, setOutputCount] = useState<number | null>(null);
  const [refreshKey, setRefreshKey] = useState(0);

  // The context's dataset facts come from the parsed dataset, which the dataset hook (below the form,
  // since it edits the form's app_data) produces; they are kept here and updated while rendering.
  const [facts, setFacts] = useState<DatasetFacts>({});
  const userId = user?.id;
  const context = useMemo<EngineContext>(
    () => ({ ...facts, applicationId: app.id, ...(userId !== undefined ? { userId } : {}) }),
    [facts, app.id, userId],
  );
  const form = useEngineForm(problem, () => (app.app_data ?? {}) as AppData, context);
  const { setAppData } = form;

  // Counts edits, so that a save finishing after a newer edit does not clear the unsaved flag.
  const edits = useRef(0);
  const edit = useCallback(
    (next: AppData) => {
      edits.current += 1;
      setAppData(next);
      setUnsaved(true);
    },
    [setAppData],
  );
  const dataset = useDataset({ problem, appData: form.appData, onChange: edit, user });
  const nextFacts = datasetFacts(dataset.parsed);
  if (!sameFacts(nextFacts, facts)) setFacts(nextFacts);

  // The tab badge: the count once on opening, then the outputs list's own total (onCountChange).
  useEffect(() => {
    let cancelled = false;
    countOutputs(app.id)
      .then((count) => !cancelled && setOutputCount(count.total))
      .catch(() => undefined); // the badge stays empty; the Outputs tab reports its own failure
    return () => {
      cancelled = true;
    };
  }, [app.id]);

  const warningTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (warningTimer.current) clearTimeout(warningTimer.current);
    },
    [],
  );
  /**
   * After a refused Pipeline: the engine's 'Fill missing at {step}' notice stays under the tabs (the
   * Pipeline tab, where the spec draws it, cannot open while the pipeline is invalid).
   */
  const [missingShown, setMissingShown] = useState(false);
  /** Opens a tab, or shows why the Pipeline cannot open yet (for 2.5 s) and what to fill. */
  const selectTab = useCallback(
    (index: number) => {
      const gate = tabGate(index, form.state.pipeline);
      if (gate.open) {
        setWarning(null);
        setMissingShown(false);
        setTab(index);
        return;
      }
      setWarning(gate.warning);
      setMissingShown(true);
      if (warningTimer.current) clearTimeout(warningTimer.current);
      warningTimer.current = setTimeout(() => setWarning(null), BLOCKED_WARNING_MS);
    },
    [form.state.pipeline],
  );

  /** A tab's Save Changes: the tab's pruned values are kept and the next tab opens (not yet on the server). */
  const keepTabValues = useCallback(
    (next: AppData, nextTab: number) => {
      edit(next);
      setWarning(null);
      setTab(nextTab);
    },
    [edit],
  );

  /** PUT update-app-data with `data` pruned of hidden values; rejects with the spec's message. */
  const persist = useCallback(
    async (data: AppData) => {
      if (!user) throw new Error(LOGIN_TO_SAVE);
      const editsAtStart = edits.current;
      try {
        await updateAppData({
          application_id: app.id,
          user_id: user.id,
          app_data: pruneAppData(problem, data),
        });
      } catch (error) {
        throw new Error(saveFailureText(error));
      }
      if (edits.current === editsAtStart) setUnsaved(false);
    },
    [app.id, problem, user],
  );

  const save = useCallback(async () => {
    try {
      await persist(form.appData);
      notify?.('success', SAVE_OK);
    } catch (error) {
      notify?.('error', (error as Error).message);
    }
  }, [persist, form.appData, notify]);

  const started = useCallback(() => {
    setRefreshKey((key) => key + 1);
    setOutputCount((count) => (count === null ? null : count + 1));
  }, []);
  const runner = useRunApplication(app, user?.id ?? null, started, notify);
  const runRef = runner.run;
  /** Saves `data` (default: the current app_data), then executes it (spec section 4). */
  const run = useCallback(
    (data: AppData = form.appData) =>
      runRef({
        appData: data,
        beforeExecute: () => persist(data),
        startedAction: { label: GO_TO_OUTPUTS, onClick: () => setTab(TAB.outputs) },
      }),
    [runRef, form.appData, persist],
  );
  /** "Run again with these settings": that app_data becomes the workspace's, saved and run. */
  const runAgain = useCallback(
    (data: AppData) => {
      setAppData(data);
      void run(data);
    },
    [setAppData, run],
  );

  return {
    problem,
    app,
    appData: form.appData,
    state: form.state,
    context,
    dataset,
    unsaved,
    tab,
    selectTab,
    warning,
    edit,
    keepTabValues,
    save,
    run,
    runAgain,
    /** The Fill missing notice is asked for and the pipeline is still invalid. */
    missingShown: missingShown && !form.state.pipeline.valid,
    running: runner.running,
    /** A new output made outside Run (a prediction): counted and listed. */
    outputAdded: started,
    outputCount,
    setOutputCount,
    refreshKey,
  };
}

export type Workspace = ReturnType<typeof useWorkspace>;
