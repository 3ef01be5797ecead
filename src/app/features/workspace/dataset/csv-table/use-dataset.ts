import { useCallback, useEffect, useRef, useState } from 'react';
import { checkFile, pruneAppData, setFieldValues, type AppData, type Problem } from '../../../../../engine';
import { uploadDataset } from '../../../../api/outputs';
import type { DatasetHandle, ParsedDataset, WorkspaceUser } from '../../workspace-types';
import {
  fetchCsv,
  isHttpUrl,
  PARSE_FAILED,
  readPathOf,
  UPLOAD_FAILED,
  uploadFailureDetail,
} from './dataset-source';
import { LOGIN_TO_SAVE } from '../../workspace-rules';
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
  // The parse of one url (its result or failure); while it does not match the chosen url, that one loads.
  const [result, setResult] = useState<{ url: string; parsed: ParsedDataset | null; reason?: string } | null>(
    null,
  );
  // What the last button press refused (an invalid link, a wrong file type); cleared by the next choice.
  const [refusal, setRefusal] = useState<string | null>(null);
  const [pendingFile, setPendingFile] = useState<File | null>(null);
  // The url whose CSV is parsed (or being parsed), so that the effect below loads each url once.
  const loadedUrl = useRef<string | undefined>(undefined);

  const url = datasetOf(appData).url;
  const currentUrl = typeof url === 'string' && url !== '' ? url : undefined;

  const parseInto = useCallback((key: string, source: Promise<Blob | string>) => {
    source.then(parseCsv).then(
      (parsed) => setResult({ url: key, parsed }),
      (e: unknown) =>
        setResult({ url: key, parsed: null, reason: e instanceof Error ? e.message : String(e) }),
    );
  }, []);

  // A saved application's dataset, a chosen sample or a linked URL: read and parse it once per url.
  useEffect(() => {
    if (!csv || !currentUrl || currentUrl === loadedUrl.current) return;
    loadedUrl.current = currentUrl;
    const path = readPathOf(currentUrl, user);
    parseInto(currentUrl, path ? fetchCsv(path) : Promise.reject(new Error('unreadable')));
  }, [csv, currentUrl, user, parseInto]);

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
        setRefusal(check.message ?? messages.uploadFirst);
        return;
      }
      const kind = rule.extensions.find((ext) => file.name.toLowerCase().endsWith(`.${ext}`));
      setRefusal(null);
      setPendingFile(file);
      // The file's name stands for its url until Save Changes uploads it (commit).
      loadedUrl.current = file.name;
      set([
        { path: at('kind'), value: kind },
        { path: at('sample'), value: undefined },
        { path: at('name'), value: file.name },
        { path: at('url'), value: file.name },
      ]);
      parseInto(file.name, Promise.resolve(file));
    },
    [problem, messages.uploadFirst, set, parseInto],
  );

  const linkUrl = useCallback(
    (text: string) => {
      const link = text.trim();
      if (!isHttpUrl(link)) {
        // platform.json's invalidUrl, the text defs.json's linkedUrlRule also gives (one home).
        setRefusal(messages.invalidUrl);
        return;
      }
      setRefusal(null);
      setPendingFile(null);
      set([
        { path: at('kind'), value: 'url' },
        { path: at('sample'), value: undefined },
        { path: at('name'), value: undefined },
        { path: at('url'), value: link },
      ]);
    },
    [set, messages.invalidUrl],
  );

  const chooseSample = useCallback(
    (sampleId: string) => {
      const sample = problem.dataset.samples.find((s) => s.id === sampleId);
      if (!sample) return;
      setRefusal(null);
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
    setRefusal(null);
    loadedUrl.current = undefined;
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
        // A file is chosen; signed out it cannot be uploaded: spec section 6's saving message.
        if (!user) throw new Error(LOGIN_TO_SAVE);
        let uploaded: string;
        try {
          uploaded = await uploadDataset(user, pendingFile);
        } catch (e) {
          throw new Error(`${UPLOAD_FAILED} ${uploadFailureDetail(e)}`);
        }
        loadedUrl.current = uploaded;
        const local = pendingFile.name;
        // The file's parse is the uploaded url's: no reading it back.
        setResult((prev) => (prev && prev.url === local ? { ...prev, url: uploaded } : prev));
        setPendingFile(null);
        withUrl = setFieldValues(problem, next, [{ path: at('url'), value: uploaded }]);
      }
      return pruneAppData(problem, withUrl);
    },
    [problem, pendingFile, user, messages.uploadFirst],
  );

  // Without a dataset url (none chosen yet, or removed) there is nothing parsed to show.
  const chosen = Boolean(csv ? currentUrl : currentUrl || datasetOf(appData).file);
  const done = csv && result !== null && result.url === currentUrl ? result : null;
  let status: DatasetHandle['status'] = 'empty';
  if (chosen) status = !csv ? 'ready' : !done ? 'loading' : done.parsed ? 'ready' : 'error';
  // A chosen local file that cannot be read: spec section 8's 'Error parsing file: {message}' (not 'upload first').
  const failure =
    status === 'error'
      ? pendingFile
        ? `${PARSE_FAILED} ${done?.reason ?? ''}`.trim()
        : messages.urlFetchError
      : null;
  return {
    status,
    parsed: done?.parsed ?? null,
    error: refusal ?? failure,
    pendingFile,
    commit,
    csv,
    chooseFile,
    linkUrl,
    chooseSample,
    remove,
  };
}
