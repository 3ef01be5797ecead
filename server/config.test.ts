import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_DOCS,
  CONFIG_VARIABLES,
  ConfigError,
  envExampleComment,
  loadConfig,
  prepareDataDir,
  readConfigVariable,
  samplesDirBeside,
} from './config';

const repoFile = (name: string) => readFileSync(path.resolve(import.meta.dirname, '..', name), 'utf8');

describe('configuration', () => {
  it('starts with no variables at all on the embedded default', () => {
    const config = loadConfig({}, '/srv/qml');
    expect(config).toMatchObject({
      port: 8080,
      publicUrl: 'http://localhost:8080',
      dataDir: '/srv/qml/data',
      databaseUrl: null,
      redisUrl: null,
      smtpUrl: null,
      workerConcurrency: 2,
      host: '127.0.0.1',
      trustProxy: false,
    });
  });

  it('reads HOST and TRUST_PROXY as an address list or a hop count, and refuses anything else', () => {
    expect(loadConfig({ HOST: '0.0.0.0', TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,::1' })).toMatchObject({
      host: '0.0.0.0',
      trustProxy: ['10.0.0.1', '192.168.0.0/16', '::1'],
    });
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY must list IP addresses/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/bad: "10.0.0.0\/33"/);
    expect(() => loadConfig({ HOST: 'not a host' })).toThrow(/HOST must be an IP address/);
  });

  it('reads every declared variable and only those', () => {
    // Each variable set to a value that differs from its default must change the configuration.
    const sample: Record<string, string> = {
      HOST: '0.0.0.0',
      PORT: '9000',
      PUBLIC_URL: 'https://qml.example.com',
      TRUST_PROXY: '1',
      DATA_DIR: '/var/qml',
      SCHEMAS_DIR: '/srv/schemas',
      UPLOAD_MAX_BYTES: '2048',
      DATASET_QUOTA_BYTES: '4096',
      URL_FETCH_MAX_BYTES: '8192',
      URL_FETCH_TIMEOUT_MS: '1000',
      STORAGE_BACKEND: 's3',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_BUCKET: 'qml-files',
      S3_REGION: 'eu-west-1',
      S3_ACCESS_KEY_ID: 'key',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: 'true',
      DATABASE_URL: 'postgres://db/qml',
      REDIS_URL: 'redis://cache',
      REDIS_PREFIX: 'other',
      SMTP_URL: 'smtp://mail',
      MAIL_FROM: 'x@example.com',
      JWT_SECRET: 's'.repeat(32),
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      ACCESS_TOKEN_TTL_SECONDS: '120',
      WORKER_CONCURRENCY: '3',
      WORKER_TIMEOUT_SECONDS: '30',
      WORKER_LOCK_SECONDS: '10',
      WORKER_PYTHON: '/usr/bin/python3',
      WORKER_WARM: 'false',
      WORKER_SERVE_SOCKET: '/run/qml/worker.sock',
      WORKER_CHECK_RECORD: 'off',
      DEMO_RESULTS: 'off',
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: 'long enough',
      GOOGLE_CLIENT_ID: 'g',
      GOOGLE_CLIENT_SECRET: 'gs',
      GITHUB_CLIENT_ID: 'h',
      GITHUB_CLIENT_SECRET: 'hs',
      GOOGLE_ISSUER_URL: 'http://127.0.0.1:9001',
      GITHUB_URL: 'http://127.0.0.1:9002',
      GITHUB_API_URL: 'http://127.0.0.1:9002/api',
      MARKET_DATA_PROVIDER: 'stooq',
      MARKET_DATA_URL: 'http://127.0.0.1:9003',
      TRACKING_RETENTION_DAYS: '30',
      LOG_LEVEL: 'debug',
      LLM_BASE_URL: 'http://127.0.0.1:8081/v1',
      LLM_MODEL: 'local-model',
      LLM_API_KEY: 'key',
    };
    expect(Object.keys(sample).sort()).toEqual([...CONFIG_VARIABLES].sort());
    const defaults = loadConfig({}, '/srv/qml');
    for (const [name, value] of Object.entries(sample)) {
      expect(loadConfig({ ...pairedWith(name, sample), [name]: value }, '/srv/qml'), name).not.toEqual(
        defaults,
      );
    }
    expect(loadConfig({ SOMETHING_ELSE: '1' }, '/srv/qml')).toEqual(defaults);
  });

  it('keeps the worker runtime check in DATA_DIR unless WORKER_CHECK_RECORD names a file or is off', () => {
    expect(loadConfig({ DATA_DIR: 'state' }, '/srv/qml').workerCheckRecord).toBe(
      '/srv/qml/state/worker-check.json',
    );
    expect(loadConfig({ WORKER_CHECK_RECORD: 'cache/check.json' }, '/srv/qml').workerCheckRecord).toBe(
      '/srv/qml/cache/check.json',
    );
    expect(loadConfig({ WORKER_CHECK_RECORD: 'off' }, '/srv/qml').workerCheckRecord).toBeNull();
  });

  it('reads the file store settings: s3 needs a bucket, path-style follows the endpoint, keys come in pairs', () => {
    expect(loadConfig({}, '/srv/qml').storageBackend).toBe('local');
    expect(() => loadConfig({ STORAGE_BACKEND: 's3' })).toThrow(/STORAGE_BACKEND=s3 needs S3_BUCKET/);
    expect(() => loadConfig({ STORAGE_BACKEND: 'nfs' })).toThrow(/STORAGE_BACKEND must be local or s3/);
    expect(() => loadConfig({ S3_BUCKET: 'No_Such' })).toThrow(/S3_BUCKET must be a bucket name/);
    expect(() => loadConfig({ S3_ACCESS_KEY_ID: 'k' })).toThrow(/S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/);
    const aws = loadConfig({ STORAGE_BACKEND: 's3', S3_BUCKET: 'qml-files' });
    expect([aws.s3ForcePathStyle, aws.s3Region, aws.s3Endpoint]).toEqual([false, 'us-east-1', null]);
    const minio = loadConfig({ STORAGE_BACKEND: 's3', S3_BUCKET: 'qml', S3_ENDPOINT: 'http://minio:9000' });
    expect(minio.s3ForcePathStyle).toBe(true);
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        REDIS_URL: 'not a url',
        WORKER_CONCURRENCY: '0',
        WORKER_WARM: 'yes',
        DEMO_RESULTS: 'later',
        JWT_SECRET: 'short',
        GOOGLE_CLIENT_ID: 'id',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('PORT must be an integer from 1 to 65535 (got "eighty")');
    expect(problems).toContain('DATABASE_URL must start with postgres:// or postgresql://');
    expect(problems).toContain('REDIS_URL is not a valid URL');
    expect(problems).toContain('WORKER_CONCURRENCY must be an integer from 1 to 64');
    expect(problems).toContain('WORKER_WARM must be true, lazy or false (got "yes")');
    expect(problems).toContain('DEMO_RESULTS must be on or off (got "later")');
    expect(problems).toContain('JWT_SECRET must be at least 32 characters');
    expect(problems).toContain('GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET must be set together');
  });

  it('takes the language model as LLM_BASE_URL with LLM_MODEL, the key optional', () => {
    expect(() => loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:8081/v1' })).toThrow(
      /LLM_BASE_URL and LLM_MODEL must be set together/,
    );
    expect(() => loadConfig({ LLM_BASE_URL: 'ftp://x', LLM_MODEL: 'm' })).toThrow(
      /LLM_BASE_URL must start with/,
    );
    const local = loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:8081/v1', LLM_MODEL: 'm' });
    expect([local.llmBaseUrl, local.llmModel, local.llmApiKey]).toEqual([
      'http://127.0.0.1:8081/v1',
      'm',
      null,
    ]);
  });

  it('generates a JWT secret once into the data directory and reuses it', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'qml-config-'));
    const first = prepareDataDir(loadConfig({ DATA_DIR: dataDir }));
    const second = prepareDataDir(loadConfig({ DATA_DIR: dataDir }));
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(statSync(path.join(dataDir, 'jwt-secret')).mode & 0o777).toBe(0o600);
  });

  it('documents exactly the declared variables in .env.example, each under its declared comment', () => {
    const example = repoFile('.env.example');
    const documented = [...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]);
    expect(documented).toEqual([...CONFIG_VARIABLES]);
    for (const variable of CONFIG_DOCS) {
      expect(example, variable.env).toContain(`${envExampleComment(variable)}\n${variable.env}=`);
    }
  });

  it("names exactly the declared variables in the README's configuration list", () => {
    const readme = repoFile('README.md');
    const section = readme.slice(
      readme.indexOf('## Configuration'),
      readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
    );
    const list = section.slice(section.indexOf('`'), section.indexOf('.\n', section.indexOf('`')));
    const named = [...list.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]);
    expect(named).toEqual([...CONFIG_VARIABLES]);
  });
});

describe('readConfigVariable (one setting, as loadConfig reads it)', () => {
  it('resolves SCHEMAS_DIR as the server does, and its samples beside it', () => {
    const env = { SCHEMAS_DIR: ' copy/schemas ' };
    expect(readConfigVariable('schemasDir', env, '/srv/qml')).toBe('/srv/qml/copy/schemas');
    expect(readConfigVariable('schemasDir', env, '/srv/qml')).toBe(loadConfig(env, '/srv/qml').schemasDir);
    expect(readConfigVariable('schemasDir', {}, '/srv/qml')).toBe(loadConfig({}, '/srv/qml').schemasDir);
    expect(samplesDirBeside('/srv/qml/copy/schemas')).toBe('/srv/qml/copy/samples');
  });

  it('refuses a bad value naming the variable, and ignores the others', () => {
    expect(() => readConfigVariable('port', { PORT: '0' })).toThrow(/PORT must be an integer/);
    expect(readConfigVariable('port', { PORT: '9000', HOST: 'not a host' })).toBe(9000);
  });
});

/** Variables that must be set together: the sample sets the partner too. */
function pairedWith(name: string, sample: Record<string, string>): Record<string, string> {
  const partners: Record<string, string> = {
    STORAGE_BACKEND: 'S3_BUCKET',
    S3_ACCESS_KEY_ID: 'S3_SECRET_ACCESS_KEY',
    S3_SECRET_ACCESS_KEY: 'S3_ACCESS_KEY_ID',
    LLM_BASE_URL: 'LLM_MODEL',
    LLM_MODEL: 'LLM_BASE_URL',
  };
  const listed = partners[name];
  if (listed) return { [listed]: sample[listed]! };
  const partner = name.endsWith('_ID') ? name.replace(/_ID$/, '_SECRET') : name.replace(/_SECRET$/, '_ID');
  return partner !== name && partner in sample ? { [partner]: sample[partner]! } : {};
}
