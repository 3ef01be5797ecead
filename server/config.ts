import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Every environment variable the product reads, declared and validated once at start.
 * .env.example lists the same names; a test keeps the two in step.
 */
export interface Config {
  port: number;
  publicUrl: string;
  dataDir: string;
  /** PostgreSQL URL; absent means the embedded PGlite database under dataDir. */
  databaseUrl: string | null;
  /** Redis URL; absent means the in-process queue. */
  redisUrl: string | null;
  /** Prefix of the queue and channel names on Redis, so deployments can share one server. */
  redisPrefix: string;
  /** SMTP URL; absent means the mail outbox table. */
  smtpUrl: string | null;
  mailFrom: string;
  jwtSecret: string;
  accessTokenTtlSeconds: number;
  workerConcurrency: number;
  workerTimeoutSeconds: number;
  workerPython: string;
  adminEmail: string | null;
  adminPassword: string | null;
  googleClientId: string | null;
  googleClientSecret: string | null;
  githubClientId: string | null;
  githubClientSecret: string | null;
  logLevel: string;
}

export const CONFIG_VARIABLES = [
  'PORT',
  'PUBLIC_URL',
  'DATA_DIR',
  'DATABASE_URL',
  'REDIS_URL',
  'REDIS_PREFIX',
  'SMTP_URL',
  'MAIL_FROM',
  'JWT_SECRET',
  'ACCESS_TOKEN_TTL_SECONDS',
  'WORKER_CONCURRENCY',
  'WORKER_TIMEOUT_SECONDS',
  'WORKER_PYTHON',
  'ADMIN_EMAIL',
  'ADMIN_PASSWORD',
  'GOOGLE_CLIENT_ID',
  'GOOGLE_CLIENT_SECRET',
  'GITHUB_CLIENT_ID',
  'GITHUB_CLIENT_SECRET',
  'LOG_LEVEL',
] as const;

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Reads and validates the configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const text = (name: string): string | null => {
    const value = env[name]?.trim();
    return value ? value : null;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const url = (name: string, protocols: string[]): string | null => {
    const raw = text(name);
    if (raw === null) return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        problems.push(
          `${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')} (got "${parsed.protocol}//...")`,
        );
      }
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };

  const port = integer('PORT', 8080, 1, 65535);
  const dataDir = path.resolve(cwd, text('DATA_DIR') ?? 'data');
  const publicUrl = url('PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`;
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url('REDIS_URL', ['redis:', 'rediss:']);
  const redisPrefix = text('REDIS_PREFIX') ?? 'qml';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(redisPrefix)) {
    problems.push('REDIS_PREFIX may hold only letters, digits, "-" and "_" (at most 64)');
  }
  const smtpUrl = url('SMTP_URL', ['smtp:', 'smtps:']);
  const mailFrom = text('MAIL_FROM') ?? 'QML Studio <no-reply@localhost>';
  const adminEmail = text('ADMIN_EMAIL');
  if (adminEmail && !EMAIL_SHAPE.test(adminEmail)) problems.push('ADMIN_EMAIL is not a valid e-mail address');
  const adminPassword = text('ADMIN_PASSWORD');
  if (adminPassword && adminPassword.length < 8)
    problems.push('ADMIN_PASSWORD must be at least 8 characters');
  const jwtSecretText = text('JWT_SECRET');
  if (jwtSecretText && jwtSecretText.length < 32) problems.push('JWT_SECRET must be at least 32 characters');
  const pairs: [string, string][] = [
    ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET'],
    ['GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET'],
  ];
  for (const [id, secret] of pairs) {
    if (Boolean(text(id)) !== Boolean(text(secret)))
      problems.push(`${id} and ${secret} must be set together`);
  }
  const logLevel = text('LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push(
      `LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${logLevel}")`,
    );
  }

  const config: Config = {
    port,
    publicUrl,
    dataDir,
    databaseUrl,
    redisUrl,
    redisPrefix,
    smtpUrl,
    mailFrom,
    jwtSecret: jwtSecretText ?? '',
    accessTokenTtlSeconds: integer('ACCESS_TOKEN_TTL_SECONDS', 60 * 60 * 24, 60, 60 * 60 * 24 * 30),
    workerConcurrency: integer('WORKER_CONCURRENCY', 2, 1, 64),
    workerTimeoutSeconds: integer('WORKER_TIMEOUT_SECONDS', 6 * 60 * 60, 1, 7 * 24 * 60 * 60),
    workerPython: text('WORKER_PYTHON') ?? path.resolve(cwd, 'worker/.venv/bin/python'),
    adminEmail,
    adminPassword,
    googleClientId: text('GOOGLE_CLIENT_ID'),
    googleClientSecret: text('GOOGLE_CLIENT_SECRET'),
    githubClientId: text('GITHUB_CLIENT_ID'),
    githubClientSecret: text('GITHUB_CLIENT_SECRET'),
    logLevel,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * Makes sure the data directory exists and a JWT secret is set: when JWT_SECRET is absent a random
 * one is generated once into DATA_DIR/jwt-secret (mode 0600) and reused on later starts.
 */
export function prepareDataDir(config: Config): Config {
  mkdirSync(config.dataDir, { recursive: true });
  if (config.jwtSecret) return config;
  const secretFile = path.join(config.dataDir, 'jwt-secret');
  if (!existsSync(secretFile)) {
    writeFileSync(secretFile, randomBytes(48).toString('base64url'), { mode: 0o600 });
  }
  return { ...config, jwtSecret: readFileSync(secretFile, 'utf8').trim() };
}
