// The datasets area wired once per process (server/services.ts): the store of uploads, the
// URL fetcher and the resolver jobs and inference use.

import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config';
import type { Database } from '../db/database';
import type { SampleCatalog } from '../samples/sample-catalog';
import type { UserRecord } from '../auth/users-repository';
import { DatasetResolver } from './dataset-resolver';
import { DatasetStore } from './dataset-store';
import { DatasetsRepository } from './datasets-repository';
import type { WorkerLauncher } from '../jobs/worker-launcher';
import { MatInspector } from './mat-inspection';
import { LocalFileStore, type FileStore } from '../storage/file-store';
import { UrlFetcher } from './url-fetcher';

export interface DatasetServices {
  /** Uploads: the file store's datasets/{ownerId}/{filename}, rows in `datasets`, the quota. */
  store: DatasetStore;
  /** http(s) datasets fetched by the server (address rules, size and time limits). */
  fetcher: UrlFetcher;
  /** The same fetcher for the workspace's GET /datasets/fetch, capped at UPLOAD_MAX_BYTES like an upload. */
  browserFetcher: UrlFetcher;
  /** A job's dataset URL as the file the worker reads (sample, upload or fetched URL). */
  resolver: DatasetResolver;
  /** What a brain tumor .mat dataset holds, read by the worker (mat-inspect), cached per file and slice. */
  matInspector: MatInspector;
}

export function createDatasetServices(
  config: Pick<
    Config,
    | 'dataDir'
    | 'uploadMaxBytes'
    | 'datasetQuotaBytes'
    | 'urlFetchMaxBytes'
    | 'urlFetchTimeoutMs'
    | 'publicUrl'
  >,
  db: Database,
  samples: SampleCatalog,
  worker: { launcher: WorkerLauncher; log?: FastifyBaseLogger },
  /** Where uploads and fetched files are published (the process's file store; DATA_DIR alone by default). */
  files: FileStore = new LocalFileStore(config.dataDir),
): DatasetServices {
  const store = new DatasetStore(db, new DatasetsRepository(db), files, {
    maxBytes: config.uploadMaxBytes,
    quotaBytes: config.datasetQuotaBytes,
  });
  // One cache directory, one bound: both fetchers trim it alike.
  const cacheMaxBytes = 10 * config.urlFetchMaxBytes;
  const fetcher = new UrlFetcher({
    dataDir: config.dataDir,
    files,
    maxBytes: config.urlFetchMaxBytes,
    timeoutMs: config.urlFetchTimeoutMs,
    cacheMaxBytes,
  });
  const browserFetcher = new UrlFetcher({
    dataDir: config.dataDir,
    files,
    maxBytes: Math.min(config.uploadMaxBytes, config.urlFetchMaxBytes),
    timeoutMs: config.urlFetchTimeoutMs,
    cacheMaxBytes,
  });
  return {
    store,
    fetcher,
    browserFetcher,
    resolver: new DatasetResolver(samples, store, fetcher, config.publicUrl),
    matInspector: new MatInspector(worker),
  };
}

/**
 * Whether a path's user and e-mail segments name the caller: the user segment is the caller's
 * name or id, the e-mail theirs (case-insensitive).
 */
export function pathNamesCaller(
  caller: Pick<UserRecord, 'id' | 'name' | 'email'>,
  user: string,
  email: string,
) {
  return (
    (user === String(caller.id) || user === caller.name) && email.toLowerCase() === caller.email.toLowerCase()
  );
}
