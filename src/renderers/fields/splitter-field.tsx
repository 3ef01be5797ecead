import type { FieldProps } from '@rjsf/utils';

import { fillDefaults, lookupField, type FieldView, type FormKey } from '../../engine';
import { FieldMessage, NumberControl } from '../controls';
import { appDataPath, rendererContext } from '../form-context';

/**
 * `splitter`: a row range (From Index, To Index) edited in place. Limits and messages are the
 * engine's (they depend on the dataset's row count); Reset puts the field's defaults back
 * (from 1 to the smaller of the row count and 100 for the financial splitter).
 */
export function SplitterField(props: FieldProps) {
  const { fieldPathId, registry, disabled, readonly } = props;
  const ctx = rendererContext(registry.formContext);
  const path = appDataPath(ctx.formPath, fieldPathId.path);
  const view = ctx.fields[path];
  const subfields: FieldView[] = (view?.subfields ?? []).filter((f) => f.active);
  const rowCount = ctx.context.rowCount;
  const locked = disabled || readonly;

  const reset = () => {
    const formKey = ctx.formPath.slice(1) as FormKey;
    const segments = fieldPathId.path.map(String);
    const field = lookupField(ctx.problem.forms[formKey]!.schema, segments, ctx.formValue);
    if (field) ctx.setValues([{ path, value: fillDefaults(field.schema, {}, ctx.context) }]);
  };

  return (
    <div className="qs-splitter" id={fieldPathId.$id}>
      <div className="qs-splitter-inputs">
        {subfields.map((sub) => {
          const id = `${fieldPathId.$id}_${sub.name}`;
          return (
            <div className="qs-subfield" key={sub.name}>
              <label htmlFor={id} className="qs-sublabel">
                {sub.label}
              </label>
              <NumberControl
                id={id}
                value={sub.value}
                disabled={locked}
                invalid={sub.errors.length > 0}
                step={1}
                min={1}
                max={typeof rowCount === 'number' ? rowCount : undefined}
                onChange={(v) => ctx.setValues([{ path: sub.path, value: v }])}
              />
              <FieldMessage id={id} message={sub.errors[0]} />
            </div>
          );
        })}
      </div>
      <div className="qs-splitter-foot">
        <span className="qs-hint">
          {typeof rowCount === 'number'
            ? `The dataset has ${rowCount} rows.`
            : 'Row count unknown until a dataset is loaded.'}
        </span>
        <button type="button" className="qs-link-button" disabled={locked} onClick={reset}>
          Reset range
        </button>
      </div>
    </div>
  );
}
