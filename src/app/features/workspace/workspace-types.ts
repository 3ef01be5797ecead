// The interfaces the workspace shell composes its Dataset and Outputs tabs through (binding contract of issue #11).
import type { AppData, EngineContext, FormState, Problem } from '../../../engine';

export interface WorkspaceUser {
  id: number;
  name: string;
  email: string;
}

/** The parsed dataset of the workspace (browser-side, papaparse in a web worker). */
export interface ParsedDataset {
  /** Header, in file order. */
  columns: string[];
  /** Data rows kept (blank lines skipped; rows whose column count differs dropped). */
  rowCount: number;
  /** Rows dropped because their column count differs from the header's. */
  droppedRows: number;
  /** First 30 kept rows keyed by header. */
  preview: Array<Record<string, string>>;
}

/** The dataset as chosen in the Dataset tab (the dataset module's useDataset returns this). */
export interface DatasetHandle {
  status: 'empty' | 'loading' | 'ready' | 'error';
  parsed: ParsedDataset | null;
  /** e.g. 'Invalid URL. Please link to your CSV file URL.' or 'Error fetching data from the URL. Please check the URL and try again.' */
  error: string | null;
  /** A local file chosen but not uploaded yet; commit() uploads it. */
  pendingFile: File | null;
  /** Save Changes of the preprocess step: uploads a pending file (obtaining its url), then resolves app_data with
   *  dataset url/kind/name/sample and the preprocess values, pruned (engine pruneAppData). Rejects with
   *  Error('Please upload a file first') without a dataset; Error('Error uploading file. {detail}') on upload failure. */
  commit(appData: AppData): Promise<AppData>;
}

export interface DatasetTabProps {
  problem: Problem;
  appData: AppData;
  context: EngineContext;
  state: FormState;
  dataset: DatasetHandle;
  /** An edit (the workspace marks itself unsaved). */
  onChange(next: AppData): void;
  /** Save Changes succeeded: the workspace stores `next` and moves to tab index+1. */
  onSaved(next: AppData): void;
}

export interface OutputsTabProps {
  problem: Problem;
  applicationId: number;
  /** The workspace's current app_data (for "diff against current configuration"). */
  appData: AppData;
  /** True from a run's start until its output is final. */
  running: boolean;
  /** Bumped by the workspace when a run starts: reload the list now. */
  refreshKey: number;
  /** The list's total, for the tab badge. */
  onCountChange(total: number): void;
  /** "Run again with these settings": the workspace saves this app_data and runs it. */
  onRunAgain(appData: AppData): void;
}
