import { useState } from 'react';
import type { AppData } from '../../../engine';
import { SchemaForm } from '../../../renderers';
import type { DatasetHandle, DatasetTabProps, WorkspaceUser } from './workspace-types';
import type { Problem } from '../../../engine';

/**
 * A stop-gap Dataset tab until the dataset module (./dataset: upload, URL linking, papaparse preview and
 * data info) lands: the problem's dataset and preprocess sections as two wizard steps, with the renderers'
 * own dataset picker (samples, file, link). It parses nothing, so the engine context has no row count.
 * The workspace switches to ./dataset by changing its two imports; this file is then removed.
 */
export function useDataset(args: {
  problem: Problem;
  appData: AppData;
  onChange(next: AppData): void;
  user: WorkspaceUser | null;
}): DatasetHandle {
  const dataset = args.appData.dataset;
  const chosen = Boolean(dataset && (dataset.url || dataset.file || dataset.sample));
  return {
    status: chosen ? 'ready' : 'empty',
    parsed: null,
    error: null,
    pendingFile: null,
    commit: (appData: AppData) =>
      chosen
        ? Promise.resolve(appData)
        : Promise.reject(new Error(args.problem.platform.messages.uploadFirst)),
  };
}

export function DatasetTab({
  problem,
  appData,
  context,
  state,
  dataset,
  onChange,
  onSaved,
}: DatasetTabProps) {
  const [step, setStep] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const save = (pruned: AppData) => {
    dataset.commit(pruned).then(
      (next) => {
        setError(null);
        setStep(0);
        onSaved(next);
      },
      (e: Error) => setError(e.message),
    );
  };
  return (
    <div className="workspace-card">
      <SchemaForm
        problem={problem}
        tab="dataset"
        appData={appData}
        context={context}
        state={state}
        onChange={onChange}
        wizardStep={step}
        idPrefix="workspace-dataset"
        {...(step === 0
          ? {
              actions: (
                <button type="button" className="qs-button qs-button--primary" onClick={() => setStep(1)}>
                  Next Step
                </button>
              ),
            }
          : {
              actions: (
                <button type="button" className="qs-button" onClick={() => setStep(0)}>
                  Previous
                </button>
              ),
              submitLabel: 'Save Changes',
              onSubmit: save,
            })}
      />
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
