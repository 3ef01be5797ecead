// The file store a process uses, chosen by STORAGE_BACKEND, and the settings its Python workers get.

import type { Config } from '../config';
import { LocalFileStore, type FileStore } from './file-store';
import { S3FileStore } from './s3-file-store';

export type StorageConfig = Pick<
  Config,
  | 'dataDir'
  | 'storageBackend'
  | 's3Endpoint'
  | 's3Bucket'
  | 's3Region'
  | 's3AccessKeyId'
  | 's3SecretAccessKey'
  | 's3ForcePathStyle'
>;

/** The store STORAGE_BACKEND names, over this process's DATA_DIR. */
export function createFileStore(config: StorageConfig): FileStore {
  if (config.storageBackend === 'local') return new LocalFileStore(config.dataDir);
  return new S3FileStore(config.dataDir, {
    bucket: config.s3Bucket!,
    endpoint: config.s3Endpoint,
    region: config.s3Region,
    forcePathStyle: config.s3ForcePathStyle,
    credentials:
      config.s3AccessKeyId && config.s3SecretAccessKey
        ? { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey }
        : null,
  });
}

/**
 * What the Python worker needs to read and publish the same files (qmlstudio_worker/file_store.py reads
 * these names): set on the worker processes' environment, never logged and never in a job envelope.
 */
export function workerStorageEnvironment(config: StorageConfig): Record<string, string> {
  const env: Record<string, string> = { DATA_DIR: config.dataDir, STORAGE_BACKEND: config.storageBackend };
  if (config.storageBackend !== 's3') return env;
  env.S3_BUCKET = config.s3Bucket!;
  env.S3_REGION = config.s3Region;
  env.S3_FORCE_PATH_STYLE = String(config.s3ForcePathStyle);
  if (config.s3Endpoint) env.S3_ENDPOINT = config.s3Endpoint;
  if (config.s3AccessKeyId && config.s3SecretAccessKey) {
    env.S3_ACCESS_KEY_ID = config.s3AccessKeyId;
    env.S3_SECRET_ACCESS_KEY = config.s3SecretAccessKey;
  }
  return env;
}
