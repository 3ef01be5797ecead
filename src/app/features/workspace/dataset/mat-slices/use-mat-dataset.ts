import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  checkFile,
  fieldOptions,
  lookupField,
  setFieldValues,
  type AppData,
  type Problem,
} from '../../../../../engine';
import type { WorkspaceUser } from '../../workspace-types';
import { fetchMatPreview, uploadMatDataset, type MatPreview } from './mat-api';

/** Spec section 8: an upload without a signed-in user. */
export const NOT_AUTHENTICATED = 'User not authenticated. Please log in.';
/** Spec section 8: a drop that carries neither a file nor the sample. */
export const UPLOAD_MAT = 'Please upload a .mat file!';
/** Sample files are stored in app_data as "samples/<file>" (src/engine/README.md). */
const samplePath = (file: string) => `samples/${file}`;

/** The dataset form's file field (its kind is 'file'): its app_data pointer and name. */
function fileField(problem: Problem): { form: string; name: string } | null {
  const form = problem.forms.dataset;
  const props = (form?.schema.properties ?? {}) as Record<string, { 'x-field'?: { kind?: string } }>;
  const name = Object.keys(props).find((key) => props[key]?.['x-field']?.kind === 'file');
  return name ? { form: '/dataset', name } : null;
}

/** The chosen dataset's url in app_data (the file field's value), if any. */
export function datasetUrlOf(problem: Problem, appData: AppData): string | undefined {
  const field = fileField(problem);
  const value = field ? (appData.dataset ?? {})[field.name] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export interface MatDataset {
  /** The app_data pointer of the dataset form's file field. */
  path: string | undefined;
  /** The dataset's url in app_data (an upload's download url or samples/<file>), if one is chosen. */
  url: string | undefined;
  preview: MatPreview | null;
  loading: boolean;
  uploading: boolean;
  /** The last refusal or failure, in the spec's words. */
  error: string | null;
  chooseFile(file: File | undefined): void;
  chooseSample(sampleId: string): void;
  refuse(message: string): void;
  showSlice(index: number): void;
  remove(): void;
}

/**
 * The Train sub-tab's dataset: a .mat upload (sent at once, so that the server's 'Error parsing file: ...'
 * shows before Next Step) or the shipped sample, written into app_data's dataset form, and its inspection.
 */
export function useMatDataset(
  problem: Problem,
  appData: AppData,
  onChange: (next: AppData) => void,
  user: WorkspaceUser | null,
): MatDataset {
  const field = useMemo(() => fileField(problem), [problem]);
  const url = datasetUrlOf(problem, appData);
  const [preview, setPreview] = useState<{ url: string; data: MatPreview } | null>(null);
  const [sliceIndex, setSliceIndex] = useState(1);
  // The inspection read last (its url and slice) and its failure, if it failed.
  const [read, setRead] = useState<{ key: string; error: string | null } | null>(null);
  const [uploading, setUploading] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const key = url ? `${url}#${sliceIndex}` : undefined;

  // The inspection of the chosen dataset (and slice), read again when either changes.
  useEffect(() => {
    if (!url || !key) return;
    const abort = new AbortController();
    fetchMatPreview(url, sliceIndex, abort.signal).then(
      (data) => {
        setPreview({ url, data });
        setRead({ key, error: null });
      },
      (e: unknown) => {
        if (!abort.signal.aborted) setRead({ key, error: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => abort.abort();
  }, [url, key, sliceIndex]);

  // The latest app_data: an upload finishing after other edits (the range, the split) builds on them.
  const latest = useRef(appData);
  useEffect(() => {
    latest.current = appData;
  }, [appData]);
  const write = useCallback(
    (values: Record<string, unknown>) => {
      if (!field) return;
      const changes = Object.entries(values).map(([key, v]) => ({ path: `${field.form}/${key}`, value: v }));
      latest.current = setFieldValues(problem, latest.current, changes);
      onChange(latest.current);
    },
    [field, problem, onChange],
  );

  /** The kind of an uploaded file: its extension when the schema lists it, else the first non-sample kind. */
  const uploadKind = useCallback(
    (fileName: string): string | undefined => {
      const schema = problem.forms.dataset?.schema;
      const kindField = schema ? lookupField(schema, ['kind'], appData.dataset ?? {}) : undefined;
      const kinds = (kindField ? (fieldOptions(kindField.schema, {}, problem.platform) ?? []) : []).map((o) =>
        String(o.value),
      );
      const ext = fileName.toLowerCase().split('.').pop() ?? '';
      return kinds.includes(ext) ? ext : kinds.find((k) => k !== 'sample');
    },
    [problem, appData.dataset],
  );

  const chooseFile = useCallback(
    (file: File | undefined) => {
      const rule = problem.dataset.upload;
      if (!rule) return;
      const check = checkFile(rule, file ? { name: file.name, size: file.size } : null);
      if (!file || !check.ok) {
        setRefusal(check.message ?? UPLOAD_MAT);
        return;
      }
      if (!user) {
        setRefusal(NOT_AUTHENTICATED);
        return;
      }
      setRefusal(null);
      setUploading(true);
      uploadMatDataset(user, file).then(
        (reply) => {
          setUploading(false);
          setSliceIndex(1);
          write({
            kind: uploadKind(file.name),
            sample: undefined,
            name: file.name,
            [field!.name]: reply.url,
          });
        },
        (e: unknown) => {
          setUploading(false);
          setRefusal(e instanceof Error ? e.message : String(e));
        },
      );
    },
    [problem, user, write, uploadKind, field],
  );

  const chooseSample = useCallback(
    (sampleId: string) => {
      const sample = problem.dataset.samples.find((s) => s.id === sampleId);
      if (!sample || !field) return;
      setRefusal(null);
      setSliceIndex(1);
      write({ kind: 'sample', sample: sample.id, name: sample.label, [field.name]: samplePath(sample.file) });
    },
    [problem, write, field],
  );

  const remove = useCallback(() => {
    if (!field) return;
    setRefusal(null);
    setPreview(null);
    write({ sample: undefined, name: undefined, [field.name]: undefined });
  }, [write, field]);

  return {
    path: field ? `${field.form}/${field.name}` : undefined,
    url,
    preview: preview && preview.url === url ? preview.data : null,
    loading: Boolean(key) && read?.key !== key,
    uploading,
    error: refusal ?? (read?.key === key ? (read?.error ?? null) : null),
    chooseFile,
    chooseSample,
    refuse: setRefusal,
    showSlice: setSliceIndex,
    remove,
  };
}
