import type { WidgetProps } from '@rjsf/utils';
import { useState, type DragEvent } from 'react';

import {
  acceptAttribute,
  checkFile,
  fieldOptions,
  joinPointer,
  lookupField,
  type FormKey,
} from '../../engine';
import { errorId } from '../controls';
import { rendererContext, type FieldChange } from '../form-context';

/** Where sample files are stored in app_data (see src/engine/README.md, "Sample datasets"). */
export const samplePath = (file: string) => `samples/${file}`;

function DatasetPicker(props: WidgetProps & { linkable: boolean }) {
  const { id, name, value, placeholder, disabled, readonly, rawErrors, registry, linkable } = props;
  const ctx = rendererContext(registry.formContext);
  const { problem, formPath } = ctx;
  const formKey = formPath.slice(1) as FormKey;
  const formSchema = problem.forms[formKey]?.schema ?? {};
  const { formValue } = ctx;
  const kindField = lookupField(formSchema, ['kind'], formValue);
  const kindLabels = kindField ? (fieldOptions(kindField.schema, ctx.context, problem.platform) ?? []) : [];
  const [link, setLink] = useState('');
  const [fileMessage, setFileMessage] = useState<string | undefined>();
  const locked = disabled || readonly;
  const current = typeof value === 'string' && value !== '' ? value : undefined;
  const valuePath = joinPointer(formPath, name);
  const at = (key: string) => joinPointer(formPath, key);
  const set = (changes: FieldChange[]) => ctx.setValues(changes);
  const kind = formValue.kind;
  const datasetName = formValue.name;
  const kindLabel = kindLabels.find((o) => o.value === kind)?.label;
  const rule = problem.dataset.upload;

  const chooseFile = async (file: File | undefined) => {
    if (!file || !rule) return;
    const check = checkFile(rule, { name: file.name, size: file.size });
    if (!check.ok) {
      setFileMessage(check.message ?? 'This file is not accepted.');
      return;
    }
    setFileMessage(undefined);
    const extension = rule.extensions.find((ext) => file.name.toLowerCase().endsWith(`.${ext}`));
    const url = ctx.uploadFile ? await ctx.uploadFile(file) : file.name;
    set([
      { path: at('kind'), value: extension },
      { path: at('sample'), value: undefined },
      { path: at('name'), value: file.name },
      { path: valuePath, value: url },
    ]);
  };

  return (
    <div className="qs-dataset" id={id} aria-describedby={rawErrors?.length ? errorId(id) : undefined}>
      {current ? (
        <div className="qs-dataset-current">
          <span className="qs-chip">{kindLabel ?? 'Dataset'}</span>
          <span className="qs-dataset-name">{typeof datasetName === 'string' ? datasetName : current}</span>
          <button
            type="button"
            className="qs-link-button"
            disabled={locked}
            onClick={() =>
              set([
                { path: valuePath, value: undefined },
                { path: at('sample'), value: undefined },
                { path: at('name'), value: undefined },
              ])
            }
          >
            Remove
          </button>
        </div>
      ) : (
        <div
          className="qs-dropzone"
          onDragOver={(e) => e.preventDefault()}
          onDrop={(e: DragEvent) => {
            e.preventDefault();
            void chooseFile(e.dataTransfer.files[0]);
          }}
        >
          {placeholder || 'Drag and drop a file here'}
        </div>
      )}
      {problem.dataset.samples.length > 0 && (
        <div className="qs-dataset-samples">
          <span className="qs-hint">Sample Datasets</span>
          <div className="qs-option-row">
            {problem.dataset.samples.map((sample) => (
              <button
                key={sample.id}
                type="button"
                className={`qs-chip-button${formValue.sample === sample.id ? ' is-checked' : ''}`}
                disabled={locked}
                onClick={() =>
                  set([
                    { path: at('kind'), value: 'sample' },
                    { path: at('sample'), value: sample.id },
                    { path: at('name'), value: sample.label },
                    { path: valuePath, value: samplePath(sample.file) },
                  ])
                }
              >
                {sample.label}
              </button>
            ))}
          </div>
        </div>
      )}
      <div className="qs-dataset-actions">
        {rule && (
          <label className="qs-file-button">
            <input
              type="file"
              accept={acceptAttribute(rule)}
              disabled={locked}
              aria-label="Upload a dataset file"
              onChange={(e) => void chooseFile(e.target.files?.[0])}
            />
            Upload {acceptAttribute(rule)}
          </label>
        )}
        {linkable && problem.dataset.kinds.includes('url') && (
          <span className="qs-link-row">
            <input
              type="url"
              className="qs-input"
              placeholder="https://example.com/data.csv"
              aria-label="Dataset URL"
              value={link}
              disabled={locked}
              onChange={(e) => setLink(e.target.value)}
            />
            <button
              type="button"
              className="qs-button"
              disabled={locked || link.trim() === ''}
              onClick={() =>
                set([
                  { path: at('kind'), value: 'url' },
                  { path: at('sample'), value: undefined },
                  { path: at('name'), value: undefined },
                  { path: valuePath, value: link.trim() },
                ])
              }
            >
              Link URL
            </button>
          </span>
        )}
      </div>
      {fileMessage && (
        <p className="qs-error" role="alert">
          {fileMessage}
        </p>
      )}
    </div>
  );
}

/** `datasetSource`: the dataset of a CSV problem: a sample, a linked URL or an uploaded file. */
export function DatasetSourceWidget(props: WidgetProps) {
  return <DatasetPicker {...props} linkable />;
}

/**
 * `fileUpload` (file kind): an uploaded file of the types `dataset.upload` allows (brain tumor: a
 * .mat training file) or the sample dataset; no URL link.
 */
export function FileUploadWidget(props: WidgetProps) {
  return <DatasetPicker {...props} linkable={false} />;
}
