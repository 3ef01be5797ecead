import type { RegistryFieldsType, RegistryWidgetsType } from '@rjsf/utils';
import { useCallback, useEffect, useMemo, useRef, type FormEvent, type ReactNode } from 'react';

import {
  getFormState,
  pruneAppData,
  setFieldValues,
  type AppData,
  type EngineContext,
  type FormState,
  type Problem,
  type TabId,
} from '../engine';
import type { FieldChange, RealDeviceChoices } from './form-context';
import { RENDERER_FIELDS, RENDERER_WIDGETS } from './renderer-registry';
import { SectionForm } from './section-form';

const NO_CONTEXT: EngineContext = {};

export interface SchemaFormProps {
  problem: Problem;
  /** Which workspace tab's forms to draw: 'dataset' (dataset and preprocess) or 'model'. */
  tab: TabId;
  appData: AppData;
  /** Row count and columns of the dataset (splitter limits, column options). Keep it stable. */
  context?: EngineContext;
  /** The engine's state for `appData` (getFormState); computed here when not given. */
  state?: FormState;
  /** The new app_data after an edit (branch defaults applied by the engine) and what changed. */
  onChange: (next: AppData, changes: FieldChange[]) => void;
  /** Dataset tab: draw only the sections of this wizard step (0 Upload Data, 1 Preprocess Data). */
  wizardStep?: number;
  /** Label of the save button (e.g. 'Save Changes'); no button without it. */
  submitLabel?: string;
  /** Called with app_data pruned of hidden conditional values; Save is disabled while the tab has errors. */
  onSubmit?: (pruned: AppData) => void;
  /** Drawn before the save button (e.g. a Previous button). */
  actions?: ReactNode;
  disabled?: boolean;
  /** Prefix of the element ids (two forms of the same problem on one page need different ones). */
  idPrefix?: string;
  /** Uploads a dataset file and returns its url (dataset widgets); without it a file is recorded by name. */
  uploadFile?: (file: File) => Promise<string>;
  /** The account's real quantum devices for the device picker (the app loads them; see form-context). */
  realDevices?: RealDeviceChoices;
  /** More widgets or fields by name, next to the built-in ones. */
  widgets?: RegistryWidgetsType;
  fields?: RegistryFieldsType;
}

/**
 * The generic form renderer: the sections the engine derives for one tab of one problem, each an
 * rjsf form with the project's widgets. Nothing here knows a problem; everything comes from the
 * problem file through the engine (sections, active fields, options, defaults, messages).
 */
export function SchemaForm({
  problem,
  tab,
  appData,
  context = NO_CONTEXT,
  state: givenState,
  onChange,
  wizardStep,
  submitLabel,
  onSubmit,
  actions,
  disabled,
  idPrefix = 'qs',
  uploadFile,
  realDevices,
  widgets: extraWidgets,
  fields: extraFields,
}: SchemaFormProps) {
  const computed = useMemo(
    () => (givenState ? undefined : getFormState(problem, appData, context)),
    [givenState, problem, appData, context],
  );
  const state = givenState ?? computed!;
  const widgets = useMemo(() => ({ ...RENDERER_WIDGETS, ...extraWidgets }), [extraWidgets]);
  const fields = useMemo(() => ({ ...RENDERER_FIELDS, ...extraFields }), [extraFields]);

  // The latest app_data, so that two changes before the next render build on each other.
  const latest = useRef(appData);
  useEffect(() => {
    latest.current = appData;
  }, [appData]);
  const onChangeRef = useRef(onChange);
  useEffect(() => {
    onChangeRef.current = onChange;
  }, [onChange]);

  const setValues = useCallback(
    (changes: FieldChange[]) => {
      const next = setFieldValues(problem, latest.current, changes, context);
      latest.current = next;
      onChangeRef.current(next, changes);
    },
    [problem, context],
  );

  const sections = state.sections[tab].filter(
    (s) => s.visible && (wizardStep === undefined || s.wizardStep === wizardStep),
  );
  // Fields each form draws in some section of the tab: a section's widgets see only the other
  // values of their form (hidden ones such as the dataset kind), so an edit in one section does not
  // make the others draw again.
  const drawn = new Map<string, Set<string>>();
  for (const s of state.sections[tab]) {
    const names = drawn.get(s.form) ?? new Set<string>();
    s.fields.forEach((f) => names.add(f.name));
    drawn.set(s.form, names);
  }
  const siblingsOf = (form: string, own: readonly string[]) => {
    const value = (appData[form] ?? {}) as Record<string, unknown>;
    const others = drawn.get(form) ?? new Set<string>();
    return Object.fromEntries(Object.entries(value).filter(([k]) => own.includes(k) || !others.has(k)));
  };
  const tabValid = state.pipeline.tabs.find((t) => t.id === tab)?.valid ?? state.valid;
  const messages = problem.platform.messages;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (tabValid && !disabled) onSubmit?.(pruneAppData(problem, latest.current));
  };

  if (sections.length === 0) {
    return (
      <p className="qs-empty" role="status">
        {messages.wrongConfigurations}
      </p>
    );
  }

  return (
    <form className="qs-form" onSubmit={submit} noValidate data-tab={tab}>
      {sections.map((section) => {
        const headingId = `${idPrefix}-${section.form}-${section.id}-heading`;
        return (
          <section className="qs-section" key={`${section.form}:${section.id}`} aria-labelledby={headingId}>
            <header className="qs-section-header">
              <h3 id={headingId}>{section.heading}</h3>
              {section.description && <p className="qs-hint">{section.description}</p>}
            </header>
            <SectionForm
              problem={problem}
              section={section}
              formValue={siblingsOf(
                section.form,
                section.fields.map((f) => f.name),
              )}
              errors={state.errors}
              context={context}
              setValues={setValues}
              widgets={widgets}
              fields={fields}
              idPrefix={idPrefix}
              disabled={disabled}
              uploadFile={uploadFile}
              realDevices={realDevices}
            />
          </section>
        );
      })}
      {(submitLabel || actions) && (
        <div className="qs-actions">
          {actions}
          {submitLabel && (
            <button type="submit" className="qs-button qs-button--primary" disabled={!tabValid || disabled}>
              {submitLabel}
            </button>
          )}
        </div>
      )}
    </form>
  );
}
