// What a job's dataset URL stands for, as a file the worker reads: a shipped sample, one of the
// owner's uploads, or an http(s) URL the server fetches (url-fetcher.ts). Jobs (execute-job) and
// inference call resolve() with the application's owner; the worker gets the path and the file store
// key, never the URL.

import type { SampleCatalog } from '../samples/sample-catalog';
import { DatasetRefusal } from './dataset-refusal';
import { datasetKey, type DatasetStore } from './dataset-store';
import { urlCacheKey, type UrlFetcher } from './url-fetcher';

export interface ResolvedDataset {
  /** Absolute path of the file on the machine that resolved it. */
  path: string;
  /**
   * The file's key in the file store (an upload or a fetched URL), which a worker on another machine
   * reads it by; null for a shipped sample, which every machine has with the code.
   */
  key: string | null;
  sha256: string;
  /** Data rows, the header not counted. */
  rowCount: number;
  columns: string[];
  /** What users see: the sample's label, the uploaded file's name, or the URL. */
  label: string;
  /** Generated rows (a synthetic sample), not observed data. */
  synthetic: boolean;
  source: 'sample' | 'upload' | 'url';
}

/** A resolved dataset as a job's extension names it for the worker (`dataset` in worker-protocol). */
export function datasetForWorker(dataset: ResolvedDataset) {
  return {
    path: dataset.path,
    ...(dataset.key ? { key: dataset.key } : {}),
    sha256: dataset.sha256,
    row_count: dataset.rowCount,
    columns: dataset.columns,
    label: dataset.label,
    synthetic: dataset.synthetic,
  };
}

/**
 * The dataset app_data names: dataset.url (the CSV problems), else dataset.file (brain tumor's training
 * .mat: the sample's samples/... path or the upload's download URL); null when none is set.
 */
export function datasetReferenceOf(appData: unknown): { field: 'url' | 'file'; value: string } | null {
  const dataset = (appData as { dataset?: unknown } | null)?.dataset;
  if (typeof dataset !== 'object' || dataset === null) return null;
  for (const field of ['url', 'file'] as const) {
    const value = (dataset as Record<string, unknown>)[field];
    if (typeof value === 'string' && value.trim()) return { field, value };
  }
  return null;
}

/** What a save may check app_data against: a dataset's rows and columns and where they come from. */
export interface KnownDatasetFacts {
  rowCount: number;
  columns: string[];
  source: ResolvedDataset['source'];
}

/** The owner a dataset is resolved for (a UserRecord has these). */
export interface DatasetOwner {
  id: number;
}

export class DatasetResolver {
  constructor(
    private readonly samples: SampleCatalog,
    private readonly store: DatasetStore,
    private readonly fetcher: UrlFetcher,
    /** PUBLIC_URL: a full link to this server's own download route is read as that route's path. */
    private readonly publicUrl: string | null = null,
  ) {}

  /**
   * `samples/<file>.csv` (a shipped sample), `/api/download/<filename>/<user>/<email>` or
   * `download/...` (the owner's upload, or a sample the download route serves), or `http(s)://...`.
   * Throws DatasetRefusal in plain words otherwise.
   */
  async resolve(owner: DatasetOwner, url: string): Promise<ResolvedDataset> {
    const reference = this.classify(url);
    if (reference.source === 'url') return this.fromUrl(reference.url);
    if (reference.source === 'sample') return this.fromSample(reference.file);
    return this.fromUpload(owner, reference.file);
  }

  /**
   * As resolve(), for a shipped sample or the owner's upload only (an http(s) URL is refused, not
   * fetched), for the server to read: an upload received by another server is fetched here first.
   */
  async resolveStored(owner: DatasetOwner, url: string): Promise<ResolvedDataset> {
    const reference = this.classify(url);
    if (reference.source === 'url') {
      throw new DatasetRefusal('The dataset must be a sample dataset or an uploaded file, not a link.');
    }
    if (reference.source === 'sample') return this.fromSample(reference.file);
    const upload = await this.fromUpload(owner, reference.file);
    const record = { owner_id: owner.id, filename: reference.file, sha256: upload.sha256 };
    return { ...upload, path: await this.store.localPath(record) };
  }

  /**
   * A dataset's rows and columns as far as they are known without fetching anything (a save checks
   * app_data with them): a sample's manifest, the owner's upload record, or what the last fetch of a
   * URL found (null when it was never fetched, or left the cache). Throws DatasetRefusal as resolve()
   * does for what is not a dataset, and for an upload that is not the owner's.
   */
  async knownFacts(owner: DatasetOwner, url: string): Promise<KnownDatasetFacts | null> {
    const reference = this.classify(url);
    if (reference.source === 'url') {
      const cached = await this.fetcher.cachedFacts(reference.url);
      return cached && { rowCount: cached.rows, columns: [...cached.columns], source: 'url' };
    }
    const found =
      reference.source === 'sample'
        ? this.fromSample(reference.file)
        : await this.fromUpload(owner, reference.file);
    return { rowCount: found.rowCount, columns: found.columns, source: found.source };
  }

  /** What a dataset URL names: an http(s) URL, a shipped sample, or an upload (by stored name). */
  private classify(
    url: string,
  ): { source: 'url'; url: string } | { source: 'sample' | 'upload'; file: string } {
    let trimmed = url.trim();
    const own = this.ownPath(trimmed);
    if (own !== null) trimmed = own;
    else if (/^https?:\/\//i.test(trimmed)) return { source: 'url', url: trimmed };
    const relative = trimmed.replace(/^\/+/, '');
    const sample = relative.match(/^samples\/([^/]+)$/);
    if (sample) return { source: 'sample', file: decodeSegment(sample[1]!) };
    const download = relative.match(/^(?:api\/)?download\/([^/]+)\/[^/]+\/[^/]+$/);
    if (download) {
      const filename = decodeSegment(download[1]!);
      return { source: this.samples.find(filename) ? 'sample' : 'upload', file: filename };
    }
    throw new DatasetRefusal(
      'The dataset must be a sample dataset, an uploaded file or an http(s) URL' +
        (trimmed ? ` (got "${trimmed.slice(0, 200)}").` : ' (none is set).'),
    );
  }

  /** The path of a full URL of this server's download route (PUBLIC_URL), else null. */
  private ownPath(url: string): string | null {
    if (!this.publicUrl) return null;
    try {
      const target = new URL(url);
      const self = new URL(this.publicUrl);
      const own = target.origin === self.origin && /^\/api\/download\//.test(target.pathname);
      return own && !target.search ? target.pathname : null;
    } catch {
      return null;
    }
  }

  private fromSample(file: string): ResolvedDataset {
    const sample = this.samples.find(file);
    if (!sample) throw new DatasetRefusal(`There is no sample dataset named "${file}".`, 404);
    return {
      path: this.samples.pathOf(file),
      key: null,
      sha256: sample.sha256,
      rowCount: sample.rows,
      columns: [...sample.columns],
      label: sample.label,
      synthetic: sample.synthetic,
      source: 'sample',
    };
  }

  private async fromUpload(owner: DatasetOwner, filename: string): Promise<ResolvedDataset> {
    const record = await this.store.findOwned(owner.id, filename);
    // Someone else's upload is as absent as one that never existed.
    if (!record) throw new DatasetRefusal(`The uploaded dataset "${filename}" was not found.`, 404);
    return {
      path: this.store.pathOf(record),
      key: datasetKey(record),
      sha256: record.sha256,
      rowCount: record.row_count,
      columns: [...record.columns],
      label: record.original_name,
      synthetic: false,
      source: 'upload',
    };
  }

  private async fromUrl(url: string): Promise<ResolvedDataset> {
    const fetched = await this.fetcher.fetch(url);
    return {
      path: fetched.path,
      key: urlCacheKey(fetched.sha256),
      sha256: fetched.sha256,
      rowCount: fetched.rows,
      columns: fetched.columns,
      label: url.length > 200 ? `${url.slice(0, 197)}...` : url,
      synthetic: false,
      source: 'url',
    };
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
