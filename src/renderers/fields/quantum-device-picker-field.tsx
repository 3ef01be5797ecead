import type { FieldProps } from '@rjsf/utils';
import { useCallback, useEffect, useState } from 'react';

import type { FieldView } from '../../engine';
import { FieldMessage, NumberControl, SelectControl, ToggleControl } from '../controls';
import { appDataPath, rendererContext } from '../form-context';
import { Modal } from '../modal';
import { realDeviceSelect } from './real-device-options';
import { TokenInput } from '../widgets/custom-ibm-token-widget';

/**
 * The sub-fields of the shared device picker (schemas/defs.json, `quantumDevicePicker`). The
 * picker draws these in its two dialogs; any other sub-field a schema adds is drawn after them by
 * its kind, so the definition can grow without a code change.
 */
export const DEVICE_PICKER_FIELDS = {
  simulatorMode: 'use_quantum_sim',
  simulator: 'sim_quantum_device',
  realDevice: 'act_quantum_device',
  noiseModel: 'quantum_noise_model',
  useCustomToken: 'check_custom_ibm_token',
  customToken: 'custom_ibm_token',
} as const;

const KNOWN = new Set<string>(Object.values(DEVICE_PICKER_FIELDS));

function optionLabel(view: FieldView | undefined): string | undefined {
  if (!view || view.value === undefined || view.value === null) return undefined;
  return view.options?.find((o) => o.value === view.value)?.label ?? String(view.value);
}

interface SubControlProps {
  view: FieldView;
  idBase: string;
  disabled: boolean;
  onChange: (value: unknown) => void;
}

/** One sub-field drawn by its kind, with its label and first message. */
function SubControl({ view, idBase, disabled, onChange }: SubControlProps) {
  const id = `${idBase}_${view.name}`;
  const message = view.active ? view.errors[0] : undefined;
  if (view.kind === 'toggle') {
    return (
      <div className="qs-subfield">
        <ToggleControl
          id={id}
          label={view.label}
          checked={view.value === true}
          disabled={disabled}
          onChange={onChange}
        />
        <FieldMessage id={id} message={message} />
      </div>
    );
  }
  return (
    <div className={`qs-subfield${view.active ? '' : ' is-inactive'}`}>
      <label htmlFor={id} className="qs-sublabel">
        {view.label}
        {view.required && view.active && <span className="qs-required"> *</span>}
      </label>
      {view.options ? (
        <SelectControl
          id={id}
          options={view.options}
          value={view.value}
          placeholder={view.placeholder ?? `Select ${view.label.toLowerCase()}`}
          disabled={disabled}
          invalid={!!message}
          onChange={onChange}
        />
      ) : view.kind === 'input' ? (
        <NumberControl
          id={id}
          value={view.value}
          disabled={disabled}
          invalid={!!message}
          onChange={onChange}
        />
      ) : (
        <TokenInput
          id={id}
          value={view.value}
          placeholder={view.placeholder}
          disabled={disabled}
          invalid={!!message}
          onChange={onChange}
        />
      )}
      {view.description && <p className="qs-hint">{view.description}</p>}
      <FieldMessage id={id} message={message} />
    </div>
  );
}

/**
 * `quantumDevicePicker`: a summary of the chosen device with two dialogs.
 * - Quantum device: simulator mode (on by default, first simulator chosen); the simulator select
 *   is enabled only in simulator mode, the real-device select only outside it; the noise model
 *   (default None) is shown only in simulator mode.
 * - Custom IBM token: the token is enabled only while 'Use Custom IBM Token' is ticked.
 * Which sub-fields are active, their options, defaults and messages all come from the engine.
 */
export function QuantumDevicePickerField(props: FieldProps) {
  const { fieldPathId, registry, disabled, readonly } = props;
  const ctx = rendererContext(registry.formContext);
  const path = appDataPath(ctx.formPath, fieldPathId.path);
  const view = ctx.fields[path];
  const [open, setOpen] = useState<'device' | 'token' | null>(null);
  const close = useCallback(() => setOpen(null), []);
  const subs = new Map((view?.subfields ?? []).map((f) => [f.name, f]));
  const sub = (name: string) => subs.get(name);
  const set = (view: FieldView) => (value: unknown) => ctx.setValues([{ path: view.path, value }]);
  const locked = !!(disabled || readonly);
  const idBase = fieldPathId.$id;
  const F = DEVICE_PICKER_FIELDS;

  const simulatorMode = sub(F.simulatorMode)?.value === true;
  const tokenTicked = sub(F.useCustomToken)?.value === true;
  const deviceErrors = [F.simulatorMode, F.simulator, F.realDevice, F.noiseModel]
    .flatMap((name) => (sub(name)?.active ? (sub(name)?.errors ?? []) : []))
    .slice(0, 1);
  const tokenErrors = [F.useCustomToken, F.customToken]
    .flatMap((name) => (sub(name)?.active ? (sub(name)?.errors ?? []) : []))
    .slice(0, 1);
  const others = (view?.subfields ?? []).filter((f) => !KNOWN.has(f.name));

  const control = (name: string, enabled: boolean) => {
    const v = sub(name);
    if (!v) return null;
    return <SubControl view={v} idBase={idBase} disabled={locked || !enabled} onChange={set(v)} />;
  };

  // The real-device select: the schema's devices, narrowed to and labelled with the account's when the
  // app passed them in (it loads them when this select is first shown in real-device mode).
  const realDevices = ctx.realDevices;
  const loadRealDevices = realDevices?.load;
  const realDeviceShown = open === 'device' && !simulatorMode && !!sub(F.realDevice);
  useEffect(() => {
    if (realDeviceShown) loadRealDevices?.();
  }, [realDeviceShown, loadRealDevices]);
  const realDeviceControl = () => {
    const v = sub(F.realDevice);
    if (!v) return null;
    const select = realDeviceSelect(v.options ?? [], realDevices);
    return (
      <>
        <SubControl
          view={{ ...v, options: select.options }}
          idBase={idBase}
          disabled={locked || simulatorMode}
          onChange={set(v)}
        />
        {!simulatorMode && select.note && (
          <p className="qs-hint" id={`${idBase}__real-devices-note`}>
            {select.note}
          </p>
        )}
      </>
    );
  };

  return (
    <div className="qs-device" id={idBase}>
      <dl className="qs-device-summary">
        <div>
          <dt>Mode</dt>
          <dd>{simulatorMode ? 'Simulator' : 'Real quantum device'}</dd>
        </div>
        <div>
          <dt>
            {simulatorMode
              ? (sub(F.simulator)?.label ?? 'Simulator')
              : (sub(F.realDevice)?.label ?? 'Device')}
          </dt>
          <dd>{optionLabel(sub(simulatorMode ? F.simulator : F.realDevice)) ?? 'None selected'}</dd>
        </div>
        {simulatorMode && sub(F.noiseModel) && (
          <div>
            <dt>{sub(F.noiseModel)!.label}</dt>
            <dd>{optionLabel(sub(F.noiseModel)) ?? 'None'}</dd>
          </div>
        )}
        {sub(F.useCustomToken) && (
          <div>
            <dt>{sub(F.customToken)?.label ?? 'Custom token'}</dt>
            <dd>{tokenTicked ? (sub(F.customToken)?.value ? 'In use' : 'Not entered') : 'Not used'}</dd>
          </div>
        )}
      </dl>
      <div className="qs-device-actions">
        <button type="button" className="qs-button" disabled={locked} onClick={() => setOpen('device')}>
          Select Quantum Device
        </button>
        {sub(F.useCustomToken) && (
          <button
            type="button"
            className="qs-button qs-button--ghost"
            disabled={locked}
            onClick={() => setOpen('token')}
          >
            Custom IBM Token
          </button>
        )}
      </div>
      {!open && <FieldMessage id={`${idBase}__summary`} message={deviceErrors[0] ?? tokenErrors[0]} />}

      {open === 'device' && (
        <Modal
          id={`${idBase}__device-dialog`}
          title={view?.label ?? 'Quantum Device'}
          onClose={close}
          footer={
            <button type="button" className="qs-button qs-button--primary" onClick={close}>
              Done
            </button>
          }
        >
          {control(F.simulatorMode, true)}
          {control(F.simulator, simulatorMode)}
          {realDeviceControl()}
          {simulatorMode && control(F.noiseModel, true)}
          {others.map((v) => (
            <SubControl
              key={v.name}
              view={v}
              idBase={idBase}
              disabled={locked || !v.active}
              onChange={set(v)}
            />
          ))}
        </Modal>
      )}
      {open === 'token' && (
        <Modal
          id={`${idBase}__token-dialog`}
          title={sub(F.customToken)?.label ?? 'Custom IBM Token'}
          onClose={close}
          footer={
            <button type="button" className="qs-button qs-button--primary" onClick={close}>
              Done
            </button>
          }
        >
          {control(F.useCustomToken, true)}
          {control(F.customToken, tokenTicked)}
        </Modal>
      )}
    </div>
  );
}
