import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, loadConfig, prepareDataDir } from './config';

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
    });
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        REDIS_URL: 'not a url',
        WORKER_CONCURRENCY: '0',
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
    expect(problems).toContain('JWT_SECRET must be at least 32 characters');
    expect(problems).toContain('GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET must be set together');
  });

  it('generates a JWT secret once into the data directory and reuses it', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'qml-config-'));
    const first = prepareDataDir(loadConfig({ DATA_DIR: dataDir }));
    const second = prepareDataDir(loadConfig({ DATA_DIR: dataDir }));
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(statSync(path.join(dataDir, 'jwt-secret')).mode & 0o777).toBe(0o600);
  });

  it('documents every variable it reads in .env.example', () => {
    const example = readFileSync(path.resolve(import.meta.dirname, '../.env.example'), 'utf8');
    const documented = [...example.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});
