// A run's custom IBM token is kept on the job row (a what-if rerun on the device needs it) but
// encrypted at rest like the profile's saved token: the raw row holds no token, and only opening it
// with the same cipher (the runner, building the worker's envelope) gives it back.

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenCipher } from '../accounts/token-cipher';
import type { Database } from '../db/database';
import { migratedMemoryDatabase } from '../test-support/harness';
import { JobStatus } from './job-states';
import { JobsRepository } from './jobs-repository';
import { openTokens, sealTokens } from './sealed-tokens';

const TOKEN = 'ab12CD34ef56GH78ij90KL12mn34';

describe('custom IBM tokens on the job row', () => {
  let db: Database;
  const cipher = new TokenCipher(randomBytes(32));
  beforeAll(async () => {
    db = await migratedMemoryDatabase();
  });
  afterAll(async () => db?.close());

  it('are stored encrypted (params and the app_data snapshot) and open only with the cipher', async () => {
    const user = await db.query<{ id: number }>(
      `insert into users (name, email, password_hash) values ('t', 'token@example.com', 'x') returning id`,
    );
    const jobs = new JobsRepository(db, cipher);
    const params = { use_quantum_simulator: false, actual_quantum_device_token: TOKEN, epochs: 3 };
    const appData = {
      model_configurations: { quantum_device: { check_custom_ibm_token: true, custom_ibm_token: TOKEN } },
    };
    const job = await db.transaction((tx) =>
      jobs.create(tx, { kind: 'stock-price-prediction', ownerId: Number(user.rows[0]!.id), params, appData }),
    );
    // the worker's result repeats the body it ran (run_record.config), token included
    await jobs.transition(job.id, [JobStatus.queued], JobStatus.running);
    await jobs.transition(job.id, [JobStatus.running], JobStatus.completed, {
      result: { metrics: { rmse: 1 }, run_record: { config: { ...params } } },
    });
    const { rows } = await db.query<{ row: string }>(
      'select row_to_json(jobs)::text as row from jobs where id = $1',
      [job.id],
    );
    expect(rows[0]!.row).not.toContain(TOKEN);
    expect(rows[0]!.row).not.toContain(TOKEN.slice(-8));
    const stored = (await jobs.find(job.id))!;
    expect(stored.params.epochs).toBe(3);
    expect(stored.status).toBe('Completed');
    expect(openTokens(stored, cipher).params.actual_quantum_device_token).toBe(TOKEN);
    expect(
      (openTokens(stored, cipher).app_data as typeof appData).model_configurations.quantum_device
        .custom_ibm_token,
    ).toBe(TOKEN);
    // a rerun copies the sealed value: sealing it again keeps it, it still opens to the token
    const again = sealTokens(stored.params, cipher);
    expect(again.actual_quantum_device_token).toBe(stored.params.actual_quantum_device_token);
    // another key (or an altered value) opens to nothing rather than to something else
    expect(openTokens(stored.params, new TokenCipher(randomBytes(32))).actual_quantum_device_token).toBe('');
    // empty and null tokens stay as they are
    expect(sealTokens({ actual_quantum_device_token: null, custom_ibm_token: '' }, cipher)).toEqual({
      actual_quantum_device_token: null,
      custom_ibm_token: '',
    });
  });

  it('kept in clear by rows written before sealing are sealed once at start', async () => {
    const user = await db.query<{ id: number }>(
      `insert into users (name, email, password_hash) values ('t', 'old-row@example.com', 'x') returning id`,
    );
    // A row as an older server wrote it: params, app_data and the result's run record in clear.
    const { rows } = await db.query<{ id: number }>(
      `insert into jobs (kind, owner_id, params, status, app_data, result)
       values ('stock-price-prediction', $1, $2, 'Completed', $3, $4) returning id`,
      [
        Number(user.rows[0]!.id),
        JSON.stringify({ actual_quantum_device_token: TOKEN, epochs: 2 }),
        JSON.stringify({ quantum_device: { custom_ibm_token: TOKEN } }),
        JSON.stringify({ run_record: { config: { actual_quantum_device_token: TOKEN } } }),
      ],
    );
    const id = Number(rows[0]!.id);
    const jobs = new JobsRepository(db, cipher);
    expect(await jobs.sealClearTokens()).toBe(1);
    const raw = await db.query<{ row: string }>(
      'select row_to_json(jobs)::text as row from jobs where id = $1',
      [id],
    );
    expect(raw.rows[0]!.row).not.toContain(TOKEN);
    const opened = openTokens((await jobs.find(id))!, cipher);
    expect(opened.params).toEqual({ actual_quantum_device_token: TOKEN, epochs: 2 });
    expect(opened.app_data).toEqual({ quantum_device: { custom_ibm_token: TOKEN } });
    expect(opened.result).toEqual({ run_record: { config: { actual_quantum_device_token: TOKEN } } });
    // sealed rows are left as they are: a second start changes nothing
    expect(await jobs.sealClearTokens()).toBe(0);
  });
});
