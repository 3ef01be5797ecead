import { useMemo, useState } from 'react';
import {
  getFormState,
  pruneAppData,
  type AppData,
  type EngineContext,
  type Problem,
} from '../../../../../engine';
import { DatasetStepForm } from '../dataset-step-form';
import { UploadSection } from '../csv-table/upload-section';
import type { WorkspaceUser } from '../../workspace-types';
import { MatPreviewView } from './mat-preview-view';
import { UPLOAD_MAT, useMatDataset } from './use-mat-dataset';

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
  // The file field's message (platform.json's uploadMatFirst) is Next Step's to show.
  const formState = useMemo(
    () => ({ ...state, errors: state.errors.filter((e) => e.path !== mat.path) }),
    [state, mat.path],
  );

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
      <UploadSection
        rule={rule}
        fileLabel="Upload .mat file"
        fileText={`${(rule?.extensions ?? []).map((ext) => `.${ext}`).join(', ')} file`}
        samples={problem.dataset.samples}
        checkedSample={chosenSample?.id}
        draggableSamples
        disabled={mat.uploading}
        chosen={
          mat.url
            ? {
                chip: chosenSample ? 'Sample dataset' : 'MAT file',
                name: typeof name === 'string' ? name : undefined,
              }
            : null
        }
        emptyText="Drag and drop a .mat file or the sample dataset here..."
        dropzoneTestId="mat-dropzone"
        onFile={mat.chooseFile}
        onSample={mat.chooseSample}
        onRemove={mat.remove}
        onDropNothing={() => mat.refuse(UPLOAD_MAT)}
      >
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
      </UploadSection>

      <DatasetStepForm
        problem={problem}
        appData={appData}
        context={ownContext}
        state={formState}
        onChange={onChange}
        wizardStep={0}
        idPrefix="workspace-bio-dataset"
        widgets={widgets}
        onNext={nextStep}
      />
      {stepRefusal && stepRefusal.url === mat.url && (
        <p className="form-error" role="alert">
          {stepRefusal.message}
        </p>
      )}
    </div>
  );
}
