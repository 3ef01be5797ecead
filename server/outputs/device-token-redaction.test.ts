import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../jobs/jobs-repository';
import { maskToken, redactDeviceTokens } from './device-token-redaction';
import { configurationRows } from '../analysis/compare-facts';
import type { AnalysisSubject } from '../analysis/output-facts';
import { runTable } from '../analysis/run-table';
import { outputDetail } from './output-detail';

// A stock run on an IBM device with the user's custom token: the job body, the app_data snapshot and the
// worker's run record all hold it; the output's detail reply must hold it nowhere.

const AT = '2026-11-27T22:00:00.000Z';
const TOKEN = 'ibm-secret-token-0123456789abcdefWXYZ';

function deviceRun(): JobRecord {
  const params = {
    training_model_type: 'Quantum',
    use_quantum_simulator: false,
    quantum_device_backend: 'ibm_kyiv',
    actual_quantum_device_token: TOKEN,
  };
  return {
    id: 9,
    kind: 'stock-price-prediction',
    owner_id: 1,
    status: 'Completed',
    params,
    result: {
      problem: 'stock-price-prediction',
      model: 'QLSTM',
      model_type: 'Quantum',
      metrics: { rmse: 1, mae: 1, direction_accuracy: null },
      charts: [],
      losses: { train: [0.5], test: [0.6] },
      trained_model_path: 'model.pt',
      run_record: {
        config: params,
        dataset_sha256: 'ab'.repeat(32),
        seed: 0,
        versions: {},
        machine: {},
        recorded_at: AT,
      },
    },
    error: null,
    created_at: AT,
    started_at: AT,
    finished_at: AT,
    execution_time: 3,
    application_id: 3,
    queue_priority: 0,
    app_data: {
      model_configurations: { check_custom_ibm_token: true, custom_ibm_token: TOKEN, qubits: 4 },
    },
    extension: {},
    name: 'Stock #9',
  };
}

describe('device token redaction', () => {
  it("masks every token key's string at any depth and leaves the rest (and the input) untouched", () => {
    const input = {
      a: [{ ibm_token: TOKEN }],
      custom_ibm_token: '',
      actual_quantum_device_token: null,
      n: 1,
    };
    expect(redactDeviceTokens(input)).toEqual({
      a: [{ ibm_token: '••••WXYZ' }],
      custom_ibm_token: '',
      actual_quantum_device_token: null,
      n: 1,
    });
    expect(input.a[0]!.ibm_token).toBe(TOKEN);
    expect(maskToken('short')).toBe('••••');
    // A job row's token is sealed at rest: its last characters are ciphertext, never shown as the token's.
    expect(maskToken('v1.aXZpdml2aXZpdg.dGFndGFndGFn.Y2lwaGVydGV4dHdYeZ')).toBe('••••');
  });

  it("an output's detail holds the token nowhere: app_data, simplified_app_data, run record config", () => {
    const detail = outputDetail(deviceRun(), []);
    expect(JSON.stringify(detail)).not.toContain(TOKEN);
    expect(JSON.stringify(detail)).not.toContain(TOKEN.slice(0, 12));
    expect(detail.app_data).toMatchObject({
      model_configurations: { custom_ibm_token: '••••WXYZ', qubits: 4 },
    });
    expect(detail.run_record).toMatchObject({ config: { actual_quantum_device_token: '••••WXYZ' } });
  });

  it('the analysis settings (compare rows, the run table) that reach reports and prompts hold no token', () => {
    const run = deviceRun();
    const subject = (job: JobRecord): AnalysisSubject => ({
      job,
      detail: outputDetail(job, []),
      problemName: 'Stock Price Prediction',
    });
    const rows = configurationRows(subject(run), subject({ ...run, id: 10 }));
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
    expect(rows).toContainEqual(expect.objectContaining({ a: '••••WXYZ', b: '••••WXYZ' }));
    const table = runTable(
      [{ ...run, created_at: AT, name: 'Stock #9', app_data: run.app_data, result: run.result }],
      null,
    );
    expect(JSON.stringify(table)).not.toContain(TOKEN);
  });
});
