// What every widget and field of a rendered section can reach through rjsf's `formContext`:
// the problem, the dataset context, the engine's field views (with sub-fields that are not
// active, such as the real-device select in simulator mode) and a setter for app_data paths.

import { joinPointer, type EngineContext, type FieldView, type Problem } from '../engine';

/** One value to set, by JSON pointer into app_data (`undefined` removes it). */
export interface FieldChange {
  path: string;
  value: unknown;
}

export interface RendererFormContext {
  problem: Problem;
  context: EngineContext;
  /** JSON pointer of the form object in app_data, e.g. "/preprocess". */
  formPath: string;
  /** The section drawn: its heading and how many fields it shows. */
  section: { heading: string; size: number };
  /** Engine field views of the section by app_data path, sub-fields included. */
  fields: Record<string, FieldView>;
  /** The section's values and the form's values no section draws (hidden ones such as the dataset kind). */
  formValue: Record<string, unknown>;
  /** Sets values by app_data path; branch defaults are applied by the engine. */
  setValues: (changes: FieldChange[]) => void;
  /** Uploads a dataset file and returns its url; without it a chosen file is recorded by name. */
  uploadFile?: (file: File) => Promise<string>;
  /** The account's real quantum devices for the device picker; without it the schema's list alone. */
  realDevices?: RealDeviceChoices;
}

/** A real quantum device as the account's provider reports it (the app fetches; renderers only draw). */
export interface RealDeviceInfo {
  name: string;
  qubits: number;
  status: string;
  pending_jobs: number;
}

/**
 * What the app knows of the account's real devices. `devices` set: the provider's list; `note` set: why
 * there is none (no stored token, provider unreachable), shown in one line under the schema's list.
 */
export interface RealDeviceChoices {
  devices?: readonly RealDeviceInfo[];
  note?: string;
  /** Called when the real-device select is shown, so the app loads the list only when it is needed. */
  load?: () => void;
}

/** Indexes a section's field views (and their sub-fields) by app_data path. */
export function indexFieldViews(views: readonly FieldView[]): Record<string, FieldView> {
  const out: Record<string, FieldView> = {};
  const visit = (view: FieldView) => {
    out[view.path] = view;
    view.subfields?.forEach(visit);
  };
  views.forEach(visit);
  return out;
}

/** The app_data path of an rjsf field, from the form path and rjsf's field path segments. */
export function appDataPath(formPath: string, segments: readonly (string | number)[]): string {
  return joinPointer(formPath, ...segments);
}

/** Reads the renderer's context from rjsf's registry.formContext (never undefined in our forms). */
export function rendererContext(formContext: unknown): RendererFormContext {
  return formContext as RendererFormContext;
}
