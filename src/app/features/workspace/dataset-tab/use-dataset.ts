import { useCallback, useEffect, useRef, useState } from 'react';
import { checkFile, pruneAppData, setFieldValues, type AppData, type Problem } from '../../../../engine';
import { uploadDataset } from '../../outputs/api';
import type { DatasetHandle, ParsedDataset, WorkspaceUser } from '../workspace-types';
import {
  fetchCsv,
  INVALID_URL,
  isHttpUrl,
  readPathOf,
  UPLOAD_FAILED,
  uploadFailureDetail,
} from './dataset-source';
import { parseCsv } from './parse-dataset';

/** The app_data form that holds the dataset choice (kind, url, name, sample). */
const FORM = '/dataset';
const at = (key: string) => `${FORM}/${key}`;

/** The Dataset tab's hook: the handle of the contract plus what the tab's buttons do. */
export interface DatasetController extends DatasetHandle {
  /** Whether this problem's dataset is a CSV this tab parses (else the renderers' own picker is used). */
  csv: boolean;
  chooseFile(file: File | undefined): void;
  linkUrl(text: string): void;
  chooseSample(sampleId: string): void;
  remove(): void;
}

interface Args {
  problem: Problem;
  appData: AppData;
  onChange(next: AppData): void;
  user: WorkspaceUser | null;
}

const datasetOf = (appData: AppData): Record<string, unknown> => appData.dataset ?? {};

export function useDataset({ problem, appData, onChange, user }: Args): DatasetController {
  const { messages } = problem.platform;
  const csv = problem.dataset.kinds.includes('csv') || problem.dataset.kinds.includes('url');
  const [parsed, setParsed] = useState<ParsedDataset | null>(null);
  const [status, setStatus] = useState<DatasetHandle['status']>('empty');
  const [error, setError] = useState<string | null>(null);
  const [pendingFile, setPendingFile] = useState<File | null>(null);
  // The url whose CSV is parsed (or being parsed), so that the effect below loads each url once.
  const loadedUrl = useRef<string | undefined>(undefined);
  const run = useRef(0);

  const url = datasetOf(appData).url;
  const currentUrl = typeof url === 'string' && url !== '' ? url : undefined;

  const parseInto = useCallback((source: Promise<Blob | string>, failure: string) => {
    const mine = ++run.current;
    setStatus('loading');
    setError(null);
    source.then(parseCsv).then(
      (result) => {
        if (mine !== run.current) return;
        setParsed(result);
        setStatus('ready');
      },
      () => {
        if (mine !== run.current) return;
        setParsed(null);
        setStatus('error');
        setError(failure);
      },
    );
  }, []);

  // A saved application's dataset, a chosen sample or a linked URL: read and parse it once per url.
  useEffect(() => {
    if (!csv || currentUrl === loadedUrl.current) return;
    loadedUrl.current = currentUrl;
    if (!currentUrl) {
      run.current += 1; // a parse still under way is for a dataset no longer chosen
      return;
    }
    const path = readPathOf(currentUrl, user);
    parseInto(path ? fetchCsv(path) : Promise.reject(new Error('unreadable')), messages.urlFetchError);
  }, [csv, currentUrl, user, parseInto, messages.urlFetchError]);

  const set = useCallback(
    (changes: Array<{ path: string; value: unknown }>) => onChange(setFieldValues(problem, appData, changes)),
    [problem, appData, onChange],
  );

  const chooseFile = useCallback(
    (file: File | undefined) => {
      const rule = problem.dataset.upload;
      if (!rule) return;
      const check = checkFile(rule, file ? { name: file.name, size: file.size } : null);
      if (!file || !check.ok) {
        setError(check.message ?? messages.uploadFirst);
        return;
      }
      const kind = rule.extensions.find((ext) => file.name.toLowerCase().endsWith(`.${ext}`));
      setPendingFile(file);
      // The file's name stands for its url until Save Changes uploads it (commit).
      loadedUrl.current = file.name;
      set([
        { path: at('kind'), value: kind },
        { path: at('sample'), value: undefined },
        { path: at('name'), value: file.name },
        { path: at('url'), value: file.name },
      ]);
      parseInto(Promise.resolve(file), messages.uploadFirst);
    },
    [problem, messages.uploadFirst, set, parseInto],
  );

  const linkUrl = useCallback(
    (text: string) => {
      const link = text.trim();
      if (!isHttpUrl(link)) {
        setError(INVALID_URL);
        return;
      }
      setPendingFile(null);
      set([
        { path: at('kind'), value: 'url' },
        { path: at('sample'), value: undefined },
        { path: at('name'), value: undefined },
        { path: at('url'), value: link },
      ]);
    },
    [set],
  );

  const chooseSample = useCallback(
    (sampleId: string) => {
      const sample = problem.dataset.samples.find((s) => s.id === sampleId);
      if (!sample) return;
      setPendingFile(null);
      set([
        { path: at('kind'), value: 'sample' },
        { path: at('sample'), value: sample.id },
        { path: at('name'), value: sample.label },
        { path: at('url'), value: `samples/${sample.file}` },
      ]);
    },
    [problem, set],
  );

  const remove = useCallback(() => {
    setPendingFile(null);
    setError(null);
    set([
      { path: at('url'), value: undefined },
      { path: at('sample'), value: undefined },
      { path: at('name'), value: undefined },
    ]);
  }, [set]);

  const commit = useCallback(
    async (next: AppData): Promise<AppData> => {
      const chosen = datasetOf(next).url;
      if (typeof chosen !== 'string' || chosen === '') throw new Error(messages.uploadFirst);
      let withUrl = next;
      if (pendingFile && chosen === pendingFile.name) {
        if (!user) throw new Error(messages.uploadFirst);
        let uploaded: string;
        try {
          uploaded = await uploadDataset(user, pendingFile);
        } catch (e) {
          throw new Error(`${UPLOAD_FAILED} ${uploadFailureDetail(e)}`);
        }
        loadedUrl.current = uploaded;
        setPendingFile(null);
        withUrl = setFieldValues(problem, next, [{ path: at('url'), value: uploaded }]);
      }
      return pruneAppData(problem, withUrl);
    },
    [problem, pendingFile, user, messages.uploadFirst],
  );

  // Without a dataset url (none chosen yet, or removed) there is nothing parsed to show.
  const chosen = Boolean(csv ? currentUrl : currentUrl || datasetOf(appData).file);
  return {
    status: chosen ? (csv ? status : 'ready') : 'empty',
    parsed: chosen ? parsed : null,
    error,
    pendingFile,
    commit,
    csv,
    chooseFile,
    linkUrl,
    chooseSample,
    remove,
  };
}
