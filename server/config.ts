import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

import { DEFAULT_SCHEMAS_DIR } from '../src/engine/node/load-schemas';

/**
 * Every environment variable the product reads, declared once: its name, what it means (the line
 * .env.example and the README repeat, checked by config.test.ts), its default and how it is parsed.
 * loadConfig reads exactly these; the Config type and CONFIG_VARIABLES derive from them.
 */

interface ReadContext {
  cwd: string;
  /** Records a problem with the variable; loadConfig throws one ConfigError naming them all. */
  fail(problem: string): void;
}

interface Variable<T> {
  readonly env: string;
  readonly doc: string;
  /** The default in words, for the docs ("none" when absent means "off"). */
  readonly defaultText: string;
  /** raw is the trimmed value, null when unset or empty. */
  read(raw: string | null, ctx: ReadContext): T;
}

const variable = <T>(env: string, doc: string, defaultText: string, read: Variable<T>['read']) => ({
  env,
  doc,
  defaultText,
  read,
});

const text =
  (fallback: string | null = null) =>
  (raw: string | null): string | null =>
    raw ?? fallback;

const integer =
  (fallback: number, min: number, max: number) =>
  (raw: string | null, ctx: ReadContext, env: string): number => {
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      ctx.fail(`${env} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };

const url =
  (protocols: string[]) =>
  (raw: string | null, ctx: ReadContext, env: string): string | null => {
    if (raw === null) return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        ctx.fail(
          `${env} must start with ${protocols.map((p) => `${p}//`).join(' or ')} (got "${parsed.protocol}//...")`,
        );
      }
    } catch {
      ctx.fail(`${env} is not a valid URL`);
    }
    return raw;
  };

/** A parser whose absent value is `fallback`. */
const withDefault =
  (fallback: string, parse: (raw: string | null, ctx: ReadContext, env: string) => string | null) =>
  (raw: string | null, ctx: ReadContext, env: string): string =>
    parse(raw, ctx, env) ?? fallback;

/** `variable` with a parser that also needs the variable's own name for its messages. */
const named = <T>(
  env: string,
  doc: string,
  defaultText: string,
  parse: (raw: string | null, ctx: ReadContext, env: string) => T,
) => variable<T>(env, doc, defaultText, (raw, ctx) => parse(raw, ctx, env));

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** An address or CIDR range (IPv4 or IPv6). */
function isAddressOrRange(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits >= 0 && bits <= (family === 4 ? 32 : 128);
}

/**
 * What Fastify's trustProxy receives: false (the default, trust no proxy: the client address is the
 * socket's), a hop count, or the proxies' addresses/CIDRs.
 */
export type TrustProxy = false | number | string[];

/** TRUST_PROXY as Fastify's trustProxy option (its types take a hop count as a function). */
export const fastifyTrustProxy = (
  trust: TrustProxy,
): boolean | string[] | ((address: string, hop: number) => boolean) =>
  typeof trust === 'number' ? (_address, hop) => hop < trust : trust;

const VARIABLES = {
  host: variable(
    'HOST',
    'Address the server listens on: 127.0.0.1 is this machine only; use 0.0.0.0 in a container or behind a proxy on another host',
    '127.0.0.1',
    (raw, ctx) => {
      const host = raw ?? '127.0.0.1';
      if (isIP(host) === 0 && !/^[A-Za-z0-9.-]{1,253}$/.test(host))
        ctx.fail(`HOST must be an IP address or a host name (got "${host}")`);
      return host;
    },
  ),
  port: named(
    'PORT',
    'HTTP port of the app, the API (/api) and the OpenAPI document (/api/openapi.json)',
    '8080',
    integer(8080, 1, 65535),
  ),
  publicUrl: named(
    'PUBLIC_URL',
    'The address users reach the product at (links in e-mails, OAuth redirects)',
    'http://localhost:$PORT',
    url(['http:', 'https:']),
  ),
  trustProxy: variable(
    'TRUST_PROXY',
    'Reverse proxies whose X-Forwarded-For is believed for the client address (sign-in throttle, logs): a comma-separated list of addresses/CIDRs, or a hop count',
    'none (the connecting address is the client)',
    (raw, ctx): TrustProxy => {
      if (raw === null) return false;
      if (/^\d+$/.test(raw)) {
        const hops = Number(raw);
        if (hops < 1 || hops > 10) ctx.fail(`TRUST_PROXY as a hop count must be from 1 to 10 (got "${raw}")`);
        return hops;
      }
      const entries = raw.split(',').map((entry) => entry.trim());
      const bad = entries.filter((entry) => !isAddressOrRange(entry));
      if (bad.length > 0)
        ctx.fail(
          `TRUST_PROXY must list IP addresses or CIDR ranges, or be a hop count (bad: "${bad.join('", "')}")`,
        );
      return entries;
    },
  ),
  dataDir: variable(
    'DATA_DIR',
    'Where the embedded database (PGlite), uploaded files and the generated JWT secret live',
    './data',
    (raw, ctx) => path.resolve(ctx.cwd, raw ?? 'data'),
  ),
  schemasDir: variable(
    'SCHEMAS_DIR',
    'The problem definitions (JSON Schema files: problems/, defs.json, outputs.json, ...) the server, the browser (GET /api/schemas) and the Python workers read; the sample datasets are the samples/ directory beside it (its manifest.json lists them)',
    'schemas/ of this repository',
    (raw, ctx) => (raw ? path.resolve(ctx.cwd, raw) : DEFAULT_SCHEMAS_DIR),
  ),
  uploadMaxBytes: named(
    'UPLOAD_MAX_BYTES',
    'Largest dataset (CSV) a user may upload, in bytes',
    '104857600 (100 MB)',
    integer(100 * 1024 * 1024, 1024, 10 * 1024 ** 3),
  ),
  datasetQuotaBytes: named(
    'DATASET_QUOTA_BYTES',
    "Room for one user's uploaded datasets under $DATA_DIR/datasets, in bytes",
    '1073741824 (1 GiB)',
    integer(1024 ** 3, 1024, 1024 ** 4),
  ),
  urlFetchMaxBytes: named(
    'URL_FETCH_MAX_BYTES',
    'Largest dataset the server fetches from an http(s) URL for a job, in bytes',
    '104857600 (100 MB)',
    integer(100 * 1024 * 1024, 1024, 10 * 1024 ** 3),
  ),
  urlFetchTimeoutMs: named(
    'URL_FETCH_TIMEOUT_MS',
    'Time limit of fetching one dataset URL (with its redirects), in milliseconds',
    '30000',
    integer(30_000, 100, 600_000),
  ),
  storageBackend: named(
    'STORAGE_BACKEND',
    'Where the files servers and workers share live (uploaded and fetched datasets, trained models, prediction images): local (DATA_DIR, one machine) or s3 (an S3-compatible bucket, S3_*; every server and `npm run worker` needs the same settings)',
    'local',
    (raw, ctx, env): 'local' | 's3' => {
      const value = raw ?? 'local';
      if (value === 'local' || value === 's3') return value;
      ctx.fail(`${env} must be local or s3 (got "${value}")`);
      return 'local';
    },
  ),
  s3Endpoint: named(
    'S3_ENDPOINT',
    'Address of an S3-compatible store (MinIO, Ceph, Garage...), e.g. http://127.0.0.1:9000; without it AWS S3 of S3_REGION',
    'none',
    url(['http:', 'https:']),
  ),
  s3Bucket: variable(
    'S3_BUCKET',
    'The bucket of the files when STORAGE_BACKEND=s3 (it must exist)',
    'none',
    (raw, ctx) => {
      if (raw && !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(raw))
        ctx.fail(
          `S3_BUCKET must be a bucket name: 3 to 63 lowercase letters, digits, "." and "-" (got "${raw}")`,
        );
      return raw;
    },
  ),
  s3Region: variable('S3_REGION', 'Region of the bucket', 'us-east-1', (raw) => raw ?? 'us-east-1'),
  s3AccessKeyId: variable(
    'S3_ACCESS_KEY_ID',
    "Access key of the bucket (with S3_SECRET_ACCESS_KEY); without them the AWS SDK's own chain (AWS_* variables, an instance role)",
    'none',
    text(),
  ),
  s3SecretAccessKey: variable(
    'S3_SECRET_ACCESS_KEY',
    'Secret of S3_ACCESS_KEY_ID (never logged)',
    'none',
    text(),
  ),
  s3ForcePathStyle: named(
    'S3_FORCE_PATH_STYLE',
    'true: the bucket in the path (http://host/bucket/key), as MinIO and most S3-compatible stores need; false: in the host name (bucket.host)',
    'true when S3_ENDPOINT is set, else false',
    (raw, ctx, env): boolean | null => {
      if (raw === null) return null;
      if (raw === 'true' || raw === 'false') return raw === 'true';
      ctx.fail(`${env} must be true or false (got "${raw}")`);
      return null;
    },
  ),
  databaseUrl: named(
    'DATABASE_URL',
    'PostgreSQL instead of the embedded PGlite, e.g. postgres://user@127.0.0.1:5432/qmlstudio',
    'none',
    url(['postgres:', 'postgresql:']),
  ),
  redisUrl: named(
    'REDIS_URL',
    'BullMQ on Redis instead of the in-process queue, e.g. redis://127.0.0.1:6379 (then `npm run worker` scales out); also shares the sign-in throttle between servers',
    'none',
    url(['redis:', 'rediss:']),
  ),
  redisPrefix: variable(
    'REDIS_PREFIX',
    'Prefix of the queue, channel and throttle key names on Redis, so several deployments can share one server',
    'qml',
    (raw, ctx) => {
      const prefix = raw ?? 'qml';
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(prefix))
        ctx.fail('REDIS_PREFIX may hold only letters, digits, "-" and "_" (at most 64)');
      return prefix;
    },
  ),
  smtpUrl: named(
    'SMTP_URL',
    'SMTP server for e-mail, e.g. smtp://user:pass@mail.example.com:587; without it mail goes to the outbox table',
    'none',
    url(['smtp:', 'smtps:']),
  ),
  mailFrom: variable(
    'MAIL_FROM',
    "Sender of the product's e-mail",
    'QML Studio <no-reply@localhost>',
    (raw) => raw ?? 'QML Studio <no-reply@localhost>',
  ),
  jwtSecret: variable(
    'JWT_SECRET',
    'Secret that signs access tokens (at least 32 characters)',
    'generated into $DATA_DIR/jwt-secret',
    (raw, ctx) => {
      if (raw && raw.length < 32) ctx.fail('JWT_SECRET must be at least 32 characters');
      return raw ?? '';
    },
  ),
  tokenEncryptionKey: variable(
    'TOKEN_ENCRYPTION_KEY',
    "Key that encrypts users' quantum-provider tokens at rest (32 bytes in base64)",
    'generated into $DATA_DIR/token-key',
    (raw, ctx) => {
      if (raw && Buffer.from(raw, 'base64').length !== 32)
        ctx.fail('TOKEN_ENCRYPTION_KEY must be 32 bytes in base64 (e.g. openssl rand -base64 32)');
      return raw ?? '';
    },
  ),
  accessTokenTtlSeconds: named(
    'ACCESS_TOKEN_TTL_SECONDS',
    'Lifetime of an access token in seconds (60 to 2592000)',
    '86400',
    integer(60 * 60 * 24, 60, 60 * 60 * 24 * 30),
  ),
  workerConcurrency: named(
    'WORKER_CONCURRENCY',
    'How many worker processes run jobs at once on this machine (1 to 64)',
    '2',
    integer(2, 1, 64),
  ),
  workerTimeoutSeconds: named(
    'WORKER_TIMEOUT_SECONDS',
    'Time limit of one job in seconds; a job over it is killed and recorded Failed',
    '21600',
    integer(6 * 60 * 60, 1, 7 * 24 * 60 * 60),
  ),
  workerLockSeconds: named(
    'WORKER_LOCK_SECONDS',
    "With REDIS_URL: how long a queue worker's hold on a running job lasts unless renewed (the worker renews it while it lives); a job whose worker vanished is handed out again within one and a half times this, then recorded Failed (5 to 3600)",
    '60',
    integer(60, 5, 3600),
  ),
  workerPython: variable(
    'WORKER_PYTHON',
    'The Python interpreter that runs the worker package',
    'worker/.venv/bin/python',
    (raw, ctx) => raw ?? path.resolve(ctx.cwd, 'worker/.venv/bin/python'),
  ),
  workerWarm: named(
    'WORKER_WARM',
    'true: a preloaded Python forks each job (fast start), from server start; lazy: from the first job; false: a fresh Python per job',
    'true',
    (raw, ctx, env): 'true' | 'lazy' | 'false' => {
      const value = raw ?? 'true';
      if (value === 'true' || value === 'lazy' || value === 'false') return value;
      ctx.fail(`${env} must be true, lazy or false (got "${value}")`);
      return 'true';
    },
  ),
  workerServeSocket: variable(
    'WORKER_SERVE_SOCKET',
    "The Unix socket of a preloaded worker another process runs (python -m qmlstudio_worker serve --socket PATH): with WORKER_WARM true or lazy, jobs fork from it, with this server's worker settings, instead of from a preloaded Python of this server's own (several servers on one machine import the libraries once)",
    'none',
    text(),
  ),
  workerCheckRecord: variable(
    'WORKER_CHECK_RECORD',
    'Where the last passing worker runtime check (python -m qmlstudio_worker health) is kept: a start within 5 minutes of it, with the same Python, venv packages and worker package, takes it instead of starting Python again; off: check at every start',
    '$DATA_DIR/worker-check.json',
    // undefined: the default, in DATA_DIR (filled in by loadConfig once DATA_DIR is read)
    (raw, ctx): string | null | undefined =>
      raw === 'off' ? null : raw ? path.resolve(ctx.cwd, raw) : undefined,
  ),
  demoResults: named(
    'DEMO_RESULTS',
    "on: at the first start (and when an example changes) run the example applications in the background at the lowest priority, for the landing page's comparison; off: never",
    'on',
    (raw, ctx, env): 'on' | 'off' => {
      const value = raw ?? 'on';
      if (value === 'on' || value === 'off') return value;
      ctx.fail(`${env} must be on or off (got "${value}")`);
      return 'on';
    },
  ),
  adminEmail: variable(
    'ADMIN_EMAIL',
    'The first admin account, created when no admin exists (its e-mail address)',
    'none',
    (raw, ctx) => {
      if (raw && !EMAIL_SHAPE.test(raw)) ctx.fail('ADMIN_EMAIL is not a valid e-mail address');
      return raw;
    },
  ),
  adminPassword: variable(
    'ADMIN_PASSWORD',
    "The first admin's password (at least 8 characters)",
    'generated and printed once',
    (raw, ctx) => {
      if (raw && raw.length < 8) ctx.fail('ADMIN_PASSWORD must be at least 8 characters');
      return raw;
    },
  ),
  googleClientId: variable('GOOGLE_CLIENT_ID', 'Google sign-in (with GOOGLE_CLIENT_SECRET)', 'none', text()),
  googleClientSecret: variable(
    'GOOGLE_CLIENT_SECRET',
    'Google sign-in (with GOOGLE_CLIENT_ID)',
    'none',
    text(),
  ),
  githubClientId: variable('GITHUB_CLIENT_ID', 'GitHub sign-in (with GITHUB_CLIENT_SECRET)', 'none', text()),
  githubClientSecret: variable(
    'GITHUB_CLIENT_SECRET',
    'GitHub sign-in (with GITHUB_CLIENT_ID)',
    'none',
    text(),
  ),
  googleIssuerUrl: named(
    'GOOGLE_ISSUER_URL',
    'OpenID Connect issuer of Google sign-in; its /.well-known/openid-configuration names the endpoints',
    'https://accounts.google.com',
    withDefault('https://accounts.google.com', url(['http:', 'https:'])),
  ),
  githubUrl: named(
    'GITHUB_URL',
    'GitHub (or GitHub Enterprise) address of sign-in: /login/oauth/authorize and /login/oauth/access_token',
    'https://github.com',
    withDefault('https://github.com', url(['http:', 'https:'])),
  ),
  githubApiUrl: named(
    'GITHUB_API_URL',
    "GitHub's REST API address, asked for the signed-in user and their e-mail addresses",
    'https://api.github.com',
    withDefault('https://api.github.com', url(['http:', 'https:'])),
  ),
  marketDataProvider: named(
    'MARKET_DATA_PROVIDER',
    "Where the landing demo's daily prices come from: shipped (the real prices in samples/market, no network) or stooq (online, needs internet)",
    'shipped',
    (raw, ctx, env): 'shipped' | 'stooq' => {
      const value = raw ?? 'shipped';
      if (value === 'shipped' || value === 'stooq') return value;
      ctx.fail(`${env} must be shipped or stooq (got "${value}")`);
      return 'shipped';
    },
  ),
  marketDataUrl: named(
    'MARKET_DATA_URL',
    'Address of the online price provider when MARKET_DATA_PROVIDER=stooq',
    'https://stooq.com',
    withDefault('https://stooq.com', url(['http:', 'https:'])),
  ),
  trackingRetentionDays: named(
    'TRACKING_RETENTION_DAYS',
    'Days page views and time on page are kept; older tracking events are deleted (1 to 3650)',
    '180',
    integer(180, 1, 3650),
  ),
  logLevel: variable(
    'LOG_LEVEL',
    'fatal, error, warn, info, debug, trace or silent; one line per request is logged at debug',
    'info',
    (raw, ctx) => {
      const level = raw ?? 'info';
      if (!LOG_LEVELS.includes(level))
        ctx.fail(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${level}")`);
      return level;
    },
  ),
  llmBaseUrl: named(
    'LLM_BASE_URL',
    "An OpenAI-compatible chat-completions server (a hosted service, llama.cpp server, vLLM), e.g. http://127.0.0.1:8081/v1, that writes the prose of analysis reports from their facts (with LLM_MODEL); its text is used only when every number it states is a fact. Without it the reports are the rule engine's",
    'none',
    url(['http:', 'https:']),
  ),
  llmModel: variable(
    'LLM_MODEL',
    'The model LLM_BASE_URL runs (with LLM_BASE_URL); graph analysis of an uploaded image needs one that takes images',
    'none',
    text(),
  ),
  llmApiKey: variable('LLM_API_KEY', 'Bearer key of LLM_BASE_URL, when it asks for one', 'none', text()),
} as const;

type Declared = { [K in keyof typeof VARIABLES]: ReturnType<(typeof VARIABLES)[K]['read']> };

/**
 * The validated configuration; PUBLIC_URL's default depends on PORT and WORKER_CHECK_RECORD's on
 * DATA_DIR, so they are filled in after reading.
 */
export type Config = Omit<Declared, 'publicUrl' | 's3ForcePathStyle' | 'workerCheckRecord'> & {
  publicUrl: string;
  s3ForcePathStyle: boolean;
  /** The kept worker runtime check's file, or null (off). */
  workerCheckRecord: string | null;
};

/** Each variable's name, doc line and default, in declaration order (docs and their test). */
export const CONFIG_DOCS: readonly { env: string; doc: string; defaultText: string }[] = Object.values(
  VARIABLES,
).map(({ env, doc, defaultText }) => ({ env, doc, defaultText }));

export const CONFIG_VARIABLES: readonly string[] = CONFIG_DOCS.map((v) => v.env);

/** The comment line .env.example carries above a variable. */
export const envExampleComment = (v: { doc: string; defaultText: string }): string =>
  `# ${v.doc}. Default: ${v.defaultText}`;

/** Variables that only work together. */
const PAIRS: [keyof Config, keyof Config][] = [
  ['googleClientId', 'googleClientSecret'],
  ['githubClientId', 'githubClientSecret'],
  ['s3AccessKeyId', 's3SecretAccessKey'],
  ['llmBaseUrl', 'llmModel'],
];

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** A variable's value: unset and empty (after trimming) both read as absent. */
function readVariable<T>(spec: Variable<T>, env: Env, ctx: ReadContext): T {
  const raw = env[spec.env]?.trim();
  return spec.read(raw ? raw : null, ctx);
}

/**
 * One variable, read by the rule loadConfig applies to it, for tools that need no other setting (the
 * benches read SCHEMAS_DIR as the server and its workers do); throws ConfigError when it is bad.
 */
export function readConfigVariable<K extends keyof Declared>(
  key: K,
  env: Env = process.env,
  cwd = process.cwd(),
): Declared[K] {
  const problems: string[] = [];
  const value = readVariable(VARIABLES[key] as Variable<Declared[K]>, env, {
    cwd,
    fail: (problem) => problems.push(problem),
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return value;
}

/** The sample datasets the problem files name live in samples/ beside the schemas directory. */
export const samplesDirBeside = (schemasDir: string): string => path.resolve(schemasDir, '..', 'samples');

/** Reads and validates the configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const ctx: ReadContext = { cwd, fail: (problem) => problems.push(problem) };
  const declared: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(VARIABLES) as [string, Variable<unknown>][]) {
    declared[key] = readVariable(spec, env, ctx);
  }
  const values = declared as Declared;
  for (const [a, b] of PAIRS) {
    if (Boolean(values[a]) !== Boolean(values[b]))
      problems.push(`${VARIABLES[a].env} and ${VARIABLES[b].env} must be set together`);
  }
  if (values.storageBackend === 's3' && !values.s3Bucket)
    problems.push('STORAGE_BACKEND=s3 needs S3_BUCKET (the bucket of the files)');
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    ...values,
    publicUrl: values.publicUrl ?? `http://localhost:${values.port}`,
    s3ForcePathStyle: values.s3ForcePathStyle ?? values.s3Endpoint !== null,
    workerCheckRecord:
      values.workerCheckRecord === undefined
        ? path.join(values.dataDir, 'worker-check.json')
        : values.workerCheckRecord,
  };
}

/**
 * Makes sure the data directory exists and the secrets are set: when JWT_SECRET (or
 * TOKEN_ENCRYPTION_KEY) is absent a random one is generated once into DATA_DIR/jwt-secret (or
 * DATA_DIR/token-key, mode 0600) and reused on later starts.
 */
export function prepareDataDir(config: Config): Config {
  mkdirSync(config.dataDir, { recursive: true });
  const generated = (file: string, make: () => string) => {
    const full = path.join(config.dataDir, file);
    if (!existsSync(full)) writeFileSync(full, make(), { mode: 0o600 });
    return readFileSync(full, 'utf8').trim();
  };
  return {
    ...config,
    jwtSecret: config.jwtSecret || generated('jwt-secret', () => randomBytes(48).toString('base64url')),
    // The same for the key of the quantum-provider tokens (TOKEN_ENCRYPTION_KEY).
    tokenEncryptionKey:
      config.tokenEncryptionKey || generated('token-key', () => randomBytes(32).toString('base64')),
  };
}
