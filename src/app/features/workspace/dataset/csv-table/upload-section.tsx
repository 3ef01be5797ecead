import type { DragEvent, ReactNode } from 'react';
import { acceptAttribute, type FileRule, type SampleDataset } from '../../../../../engine';
import './dataset-tab.css';

/** The drag payload of a draggable sample button (its id), so that the drop zone can tell it from a file. */
export const SAMPLE_DRAG_TYPE = 'application/x-qmlstudio-sample';

/** What the drop zone shows for the chosen dataset: its kind (a chip) and its name. */
export interface ChosenDataset {
  chip: string;
  name?: string | undefined;
}

export interface UploadSectionProps {
  /** The problem's upload rule; without one there is no upload button. */
  rule: FileRule | undefined;
  /** The file input's accessible name, e.g. 'Upload a dataset file'. */
  fileLabel: string;
  /** The text on the file button, e.g. 'CSV file'. */
  fileText: string;
  samples: readonly SampleDataset[];
  /** The id of the sample in use (its button is drawn checked). */
  checkedSample: string | undefined;
  /** Sample buttons can also be dragged onto the drop zone. */
  draggableSamples?: boolean;
  /** While true (e.g. uploading) the file input and the sample buttons are disabled. */
  disabled?: boolean;
  /** The chosen dataset, or null: the drop zone then shows `emptyText`. */
  chosen: ChosenDataset | null;
  emptyText: string;
  dropzoneTestId?: string;
  chipTestId?: string;
  onFile(file: File | undefined): void;
  onSample(sampleId: string): void;
  onRemove(): void;
  /** A drop with neither a file nor a sample (default: onFile(undefined)). */
  onDropNothing?(): void;
  /** What the main column shows below the drop zone (hints, messages, preview). */
  children?: ReactNode;
}

/**
 * A dataset's source, as the Dataset tab and the brain tumor Train panel draw it: on the left 'Upload
 * Datasets' (a file button) and 'Sample Datasets' (one button per sample), on the right the drop zone with
 * the chosen dataset and Remove, then the caller's own content.
 */
export function UploadSection(props: UploadSectionProps) {
  const { rule, samples, checkedSample, draggableSamples = false, disabled = false, chosen } = props;
  const { onFile, onSample, onRemove, onDropNothing } = props;

  const drop = (event: DragEvent) => {
    event.preventDefault();
    const file = event.dataTransfer.files[0];
    const sampleId = draggableSamples ? event.dataTransfer.getData(SAMPLE_DRAG_TYPE) : '';
    if (file) onFile(file);
    else if (sampleId) onSample(sampleId);
    else if (onDropNothing) onDropNothing();
    else onFile(undefined);
  };

  return (
    <div className="dataset-upload">
      <aside className="dataset-panel">
        {rule && (
          <section>
            <h3>Upload Datasets</h3>
            <label className="qs-file-button">
              <input
                type="file"
                accept={acceptAttribute(rule)}
                aria-label={props.fileLabel}
                disabled={disabled}
                onChange={(e) => {
                  onFile(e.target.files?.[0]);
                  e.target.value = '';
                }}
              />
              {props.fileText}
            </label>
          </section>
        )}
        {samples.length > 0 && (
          <section>
            <h3>Sample Datasets</h3>
            <div className="dataset-samples">
              {samples.map((sample) => (
                <button
                  key={sample.id}
                  type="button"
                  draggable={draggableSamples || undefined}
                  className={`qs-chip-button${checkedSample === sample.id ? ' is-checked' : ''}`}
                  disabled={disabled}
                  onDragStart={
                    draggableSamples ? (e) => e.dataTransfer.setData(SAMPLE_DRAG_TYPE, sample.id) : undefined
                  }
                  onClick={() => onSample(sample.id)}
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
          data-testid={props.dropzoneTestId}
          onDragOver={(e) => e.preventDefault()}
          onDrop={drop}
        >
          {chosen ? (
            <div className="dataset-current">
              <span className="qs-chip" data-testid={props.chipTestId}>
                {chosen.chip}
              </span>
              {chosen.name !== undefined && <span className="dataset-name">{chosen.name}</span>}
              <button type="button" className="qs-link-button" onClick={onRemove}>
                Remove
              </button>
            </div>
          ) : (
            <p>{props.emptyText}</p>
          )}
        </div>
        {props.children}
      </div>
    </div>
  );
}
