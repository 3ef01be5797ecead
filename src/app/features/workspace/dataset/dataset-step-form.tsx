import { SchemaForm, type SchemaFormProps } from '../../../../renderers';

export type DatasetStepFormProps = Omit<SchemaFormProps, 'tab'> & {
  /** Whether the step's own fields are drawn (an upload step may stand in for them); default true. */
  showForm?: boolean;
  /** Step 0: the Next Step button under the form, which leads to the next step (after its checks). */
  onNext?: () => void;
};

/**
 * One step of a dataset tab's wizard, whatever the dataset's kind (CSV table, .mat slices): the dataset
 * tab's fields of that step, then Next Step where the step leads on.
 */
export function DatasetStepForm({ showForm = true, onNext, ...form }: DatasetStepFormProps) {
  return (
    <>
      {showForm && <SchemaForm tab="dataset" {...form} />}
      {onNext && (
        <div className="dataset-step-actions">
          <button type="button" className="qs-button qs-button--primary" onClick={onNext}>
            Next Step
          </button>
        </div>
      )}
    </>
  );
}
