import { useMemo, useState } from 'react';
import { fieldOptions, getTabSections, lookupField, type AppData, type Problem } from '../../../../../engine';
import { DatasetStepForm } from '../dataset-step-form';
import type { DatasetTabProps } from '../../workspace-types';
import { DataInfo, DatasetPreview } from './dataset-preview';
import { UploadSection } from './upload-section';
import type { DatasetController } from './use-dataset';
import './dataset-tab.css';

const STEPS = ['Upload Data', 'Preprocess Data'];
/** The dataset source field is drawn by this tab itself on step 0 (left panel, drop zone, link row). */
const NO_WIDGET = () => null;
const TAB_WIDGETS = { datasetSource: NO_WIDGET };

/** The label of the chosen dataset's kind (the schema's datasetKind labels), or the sample's label. */
function typeLabel(problem: Problem, appData: AppData): string | undefined {
  const dataset = appData.dataset ?? {};
  if (dataset.kind === 'sample') {
    const sample = problem.dataset.samples.find((s) => s.id === dataset.sample);
    if (sample) return sample.label;
  }
  const formSchema = problem.forms.dataset?.schema;
  const kindField = formSchema ? lookupField(formSchema, ['kind'], dataset) : undefined;
  const options = kindField ? (fieldOptions(kindField.schema, {}, problem.platform) ?? []) : [];
  const label = options.find((o) => o.value === dataset.kind)?.label;
  return label ?? (typeof dataset.kind === 'string' ? dataset.kind.toUpperCase() : undefined);
}

export function DatasetTab(props: Omit<DatasetTabProps, 'dataset'> & { dataset: DatasetController }) {
  const { problem, appData, context, state, dataset, onChange, onSaved } = props;
  const [step, setStep] = useState(0);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  // Step 0 sections with fields besides the dataset source (e.g. a train/test split in the dataset form).
  const otherStep0 = useMemo(
    () =>
      getTabSections(problem, 'dataset', appData, context).some(
        (s) =>
          s.visible &&
          s.wizardStep === 0 &&
          s.fields.some((f) => f.kind !== 'datasetSource' && f.kind !== 'hidden'),
      ),
    [problem, appData, context],
  );

  const save = (pruned: AppData) => {
    setSaving(true);
    dataset.commit(pruned).then(
      (next) => {
        setSaving(false);
        setSaveError(null);
        setStep(0);
        onSaved(next);
      },
      (e: unknown) => {
        setSaving(false);
        setSaveError(e instanceof Error ? e.message : String(e));
      },
    );
  };

  const form = { problem, appData, context, state, onChange, idPrefix: 'workspace-dataset' };

  return (
    <div className="workspace-card dataset-tab">
      <ol className="dataset-steps" aria-label="Dataset steps">
        {STEPS.map((label, i) => (
          <li
            key={label}
            className={i === step ? 'is-current' : undefined}
            aria-current={i === step ? 'step' : undefined}
          >
            {label}
          </li>
        ))}
      </ol>
      {step === 0 ? (
        <>
          {dataset.csv ? <UploadStep problem={problem} appData={appData} dataset={dataset} /> : null}
          <DatasetStepForm
            {...form}
            showForm={!dataset.csv || otherStep0}
            wizardStep={0}
            {...(dataset.csv ? { widgets: TAB_WIDGETS } : {})}
            onNext={() => setStep(1)}
          />
        </>
      ) : (
        <DatasetStepForm
          {...form}
          wizardStep={1}
          disabled={saving}
          actions={
            <button type="button" className="qs-button" onClick={() => setStep(0)}>
              Previous
            </button>
          }
          submitLabel="Save Changes"
          onSubmit={save}
        />
      )}
      {saveError && (
        <p className="form-error" role="alert">
          {saveError}
        </p>
      )}
    </div>
  );
}

function UploadStep({
  problem,
  appData,
  dataset,
}: {
  problem: Problem;
  appData: AppData;
  dataset: DatasetController;
}) {
  const [link, setLink] = useState('');
  const rule = problem.dataset.upload;
  const name = appData.dataset?.name;
  const chosen =
    dataset.status !== 'empty'
      ? { chip: typeLabel(problem, appData) ?? 'Dataset', name: typeof name === 'string' ? name : undefined }
      : null;
  return (
    <UploadSection
      rule={rule}
      fileLabel="Upload a dataset file"
      fileText={`${(rule?.extensions ?? []).map((ext) => ext.toUpperCase()).join(', ')} file`}
      samples={problem.dataset.samples}
      checkedSample={typeof appData.dataset?.sample === 'string' ? appData.dataset.sample : undefined}
      chosen={chosen}
      emptyText="Drag and drop dataset components here..."
      chipTestId="dataset-type"
      onFile={dataset.chooseFile}
      onSample={dataset.chooseSample}
      onRemove={dataset.remove}
    >
      <p className="qs-hint">Please use the same format as the sample datasets.</p>
      {problem.dataset.kinds.includes('url') && (
        <form
          className="dataset-link-row"
          onSubmit={(e) => {
            e.preventDefault();
            dataset.linkUrl(link);
          }}
        >
          <input
            type="text"
            className="qs-input"
            placeholder="https://example.com/data.csv"
            aria-label="Dataset URL"
            value={link}
            onChange={(e) => setLink(e.target.value)}
          />
          <button type="submit" className="qs-button">
            Link URL
          </button>
        </form>
      )}
      {dataset.error && (
        <p className="form-error" role="alert">
          {dataset.error}
        </p>
      )}
      {dataset.status === 'loading' && <p className="qs-hint">Reading the dataset...</p>}
      {dataset.parsed && (
        <DatasetPreview parsed={dataset.parsed} message={problem.platform.messages.previewTruncated} />
      )}
      <DataInfo parsed={dataset.parsed} empty={problem.platform.messages.noDataInfo} />
    </UploadSection>
  );
}
