import { useMemo, useState, type DragEvent } from 'react';
import {
  acceptAttribute,
  getFormState,
  pruneAppData,
  type AppData,
  type EngineContext,
  type Problem,
} from '../../../../engine';
import { SchemaForm } from '../../../../renderers';
import type { WorkspaceUser } from '../workspace-types';
import { MatPreviewView } from './mat-preview-view';
import { UPLOAD_MAT, useMatDataset } from './use-mat-dataset';

/** The drag payload of the sample button (its id), so that the drop zone can tell it from a file. */
const SAMPLE_TYPE = 'application/x-qmlstudio-sample';
/** This sub-tab draws the file field's controls itself (buttons, drop zone, tables); in the form the field
 * only names the chosen dataset. */
function chosenDatasetWidget(name: string | undefined) {
  return function ChosenDataset() {
    return <p className="bio-chosen">{name ?? 'None yet: upload a .mat file or choose the sample above.'}</p>;
  };
}

export const SYNTHETIC_NOTICE = 'Synthetic slices — accuracy on them says nothing about medical accuracy.';

export interface TrainPanelProps {
  problem: Problem;
  appData: AppData;
  context: EngineContext;
  user: WorkspaceUser | null;
  onChange(next: AppData): void;
  /** Next Step: the workspace keeps the pruned app_data and opens Model Configurations. */
  onSaved(next: AppData): void;
}

/**
 * Train Brain Tumor: the sample or a .mat upload (button, file input or drag), its inspection, the rest of
 * the dataset form from the schema (training range with the dataset's slice count, split), 'Next Step'.
 */
export function TrainPanel({ problem, appData, context, user, onChange, onSaved }: TrainPanelProps) {
  const mat = useMatDataset(problem, appData, onChange, user);
  // Next Step's refusal, for the dataset it was made about (choosing another one clears it).
  const [stepRefusal, setStepRefusal] = useState<{ url: string | undefined; message: string } | null>(null);
  const rule = problem.dataset.upload;
  const messages = problem.platform.messages;
  const chosenSample = problem.dataset.samples.find((s) => s.id === appData.dataset?.sample);
  const name = appData.dataset?.name;
  const chosenName = mat.url && typeof name === 'string' ? name : undefined;
  const widgets = useMemo(() => ({ fileUpload: chosenDatasetWidget(chosenName) }), [chosenName]);

  // The splitter's limit is the chosen dataset's slice count ('To Index must not exceed N').
  const ownContext = useMemo<EngineContext>(
    () => (mat.preview ? { ...context, rowCount: mat.preview.count } : context),
    [context, mat.preview],
  );
  const state = useMemo(() => getFormState(problem, appData, ownContext), [problem, appData, ownContext]);
  // The file field's message ('Please upload a .mat file before proceeding!') is Next Step's to show.
  const formState = useMemo(
    () => ({ ...state, errors: state.errors.filter((e) => e.path !== mat.path) }),
    [state, mat.path],
  );

  const drop = (event: DragEvent) => {
    event.preventDefault();
    const sampleId = event.dataTransfer.getData(SAMPLE_TYPE);
    const file = event.dataTransfer.files[0];
    if (file) mat.chooseFile(file);
    else if (sampleId) mat.chooseSample(sampleId);
    else mat.refuse(UPLOAD_MAT);
  };

  const nextStep = () => {
    if (!mat.url) {
      setStepRefusal({ url: undefined, message: rule?.messages?.missing ?? UPLOAD_MAT });
      return;
    }
    const datasetErrors = state.errors.filter((e) => e.path.startsWith('/dataset'));
    if (datasetErrors.length > 0) {
      setStepRefusal({ url: mat.url, message: datasetErrors[0]!.message });
      return;
    }
    setStepRefusal(null);
    onSaved(pruneAppData(problem, appData));
  };

  return (
    <div className="bio-train">
      <div className="dataset-upload">
        <aside className="dataset-panel">
          {rule && (
            <section>
              <h3>Upload Datasets</h3>
              <label className="qs-file-button">
                <input
                  type="file"
                  accept={acceptAttribute(rule)}
                  aria-label="Upload .mat file"
                  disabled={mat.uploading}
                  onChange={(e) => {
                    mat.chooseFile(e.target.files?.[0]);
                    e.target.value = '';
                  }}
                />
                {rule.extensions.map((ext) => `.${ext}`).join(', ')} file
              </label>
            </section>
          )}
          {problem.dataset.samples.length > 0 && (
            <section>
              <h3>Sample Datasets</h3>
              <div className="dataset-samples">
                {problem.dataset.samples.map((sample) => (
                  <button
                    key={sample.id}
                    type="button"
                    draggable
                    className={`qs-chip-button${chosenSample?.id === sample.id ? ' is-checked' : ''}`}
                    disabled={mat.uploading}
                    onDragStart={(e) => e.dataTransfer.setData(SAMPLE_TYPE, sample.id)}
                    onClick={() => mat.chooseSample(sample.id)}
                  >
                    {sample.label}
                  </button>
                ))}
              </div>
            </section>
          )}
        </aside>
        <div className="dataset-main">
          <div
            className="dataset-dropzone"
            data-testid="mat-dropzone"
            onDragOver={(e) => e.preventDefault()}
            onDrop={drop}
          >
            {mat.url ? (
              <div className="dataset-current">
                <span className="qs-chip">{chosenSample ? 'Sample dataset' : 'MAT file'}</span>
                {typeof name === 'string' && <span className="dataset-name">{name}</span>}
                <button type="button" className="qs-link-button" onClick={mat.remove}>
                  Remove
                </button>
              </div>
            ) : (
              <p>Drag and drop a .mat file or the sample dataset here...</p>
            )}
          </div>
          {mat.uploading && <p className="qs-hint">Uploading and reading the file…</p>}
          {mat.error && (
            <p className="form-error" role="alert">
              {mat.error}
            </p>
          )}
          {chosenSample && /synthetic/i.test(chosenSample.label) && (
            <p className="notice bio-synthetic" role="note">
              {SYNTHETIC_NOTICE}
            </p>
          )}
          {mat.url && !mat.preview && mat.loading && <p className="qs-hint">Reading the dataset…</p>}
          {mat.preview && (
            <MatPreviewView
              key={mat.url}
              preview={mat.preview}
              truncatedText={messages.previewTruncated ?? ''}
              loading={mat.loading}
              onShowSlice={mat.showSlice}
            />
          )}
        </div>
      </div>

      <SchemaForm
        problem={problem}
        tab="dataset"
        appData={appData}
        context={ownContext}
        state={formState}
        onChange={onChange}
        wizardStep={0}
        idPrefix="workspace-bio-dataset"
        widgets={widgets}
      />
      <div className="dataset-step-actions">
        <button type="button" className="qs-button qs-button--primary" onClick={nextStep}>
          Next Step
        </button>
      </div>
      {stepRefusal && stepRefusal.url === mat.url && (
        <p className="form-error" role="alert">
          {stepRefusal.message}
        </p>
      )}
    </div>
  );
}
