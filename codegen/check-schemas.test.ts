// npm run schemas:check: each kind of mistake a domain expert can make is reported with the file,
// a JSON pointer into it and the reason.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { checkExamplesAgainstSamples, checkSchemaSources, type SchemaIssue } from '../src/engine';
import { loadSampleManifest } from '../src/engine/node/load-sample-manifest';
import { DEFAULT_SCHEMAS_DIR, loadSchemaSources, REPO_ROOT } from '../src/engine/node/load-schemas';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test fixtures are edited freely

const STOCK = 'problems/stock-price-prediction.json';
const BRAIN = 'problems/brain-tumor.json';

/**
 * The checker's issues for the repository's schemas with `file` edited. Of the problem files only the
 * edited one is passed: each problem is checked against the shared files (platform, defs, categories,
 * outputs, accounts, meta-schemas), never against another problem, and checking all six in each of
 * these ~40 cases was most of this file's CPU time. 'the repository schemas pass' checks all of them.
 */
function checkWith(file: string, edit: (json: Json) => void): SchemaIssue[] {
  const sources = loadSchemaSources();
  const copy = structuredClone(sources[file]) as Json;
  edit(copy);
  const others = (name: string) => name.startsWith('problems/') && name !== file;
  return checkSchemaSources({
    ...Object.fromEntries(Object.entries(sources).filter(([name]) => !others(name))),
    [file]: copy,
  });
}

/** Copies schemas/ to a temp dir, edits it and runs the CLI there, as a contributor would. */
function runCheckerOnCopy(edit: (sources: Record<string, unknown>) => void): {
  status: number;
  output: string;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'qml-check-'));
  try {
    cpSync(DEFAULT_SCHEMAS_DIR, dir, { recursive: true });
    const sources = loadSchemaSources(dir);
    const before = JSON.stringify(sources);
    edit(sources);
    for (const [file, json] of Object.entries(sources)) {
      if (JSON.stringify(json) !== JSON.stringify(JSON.parse(before)[file])) {
        writeFileSync(path.join(dir, file), JSON.stringify(json));
      }
    }
    try {
      execFileSync(
        process.execPath,
        ['--import', 'tsx', path.join(REPO_ROOT, 'codegen/check-schemas.ts'), dir],
        {
          cwd: REPO_ROOT,
          encoding: 'utf8',
          stdio: 'pipe',
        },
      );
      return { status: 0, output: '' };
    } catch (err) {
      const e = err as { status: number; stderr: string };
      return { status: e.status, output: e.stderr };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One CLI run on a copy with two mistakes in two problem files, shared by the two tests that read its
 * output (each CLI run starts tsx and the engine again): stock's epochs reach 200 while its job body
 * stops at 100 (a cross-check), and fraud-detection's repeats has a misspelt "minimun" (a meta-schema
 * finding, which skips that file's cross-checks, hence another file).
 */
let brokenCopyRun: ReturnType<typeof runCheckerOnCopy> | undefined;
const cliOnBrokenCopy = () =>
  (brokenCopyRun ??= runCheckerOnCopy((sources) => {
    const stock = sources[STOCK] as Json;
    stock.forms.model_configurations.schema.properties.epochs.maximum = 200;
    const fraud = sources['problems/fraud-detection.json'] as Json;
    fraud.forms.model_configurations.schema.properties.repeats.minimun = 3;
  }));

describe('schemas:check', () => {
  it('the repository schemas pass', () => {
    expect(checkSchemaSources(loadSchemaSources())).toEqual([]);
  });

  it('a body schema draft-07 cannot read is reported, and leaves nothing behind for the next check', () => {
    const issues = checkWith(STOCK, (j) => {
      j.job.bodySchema.properties.train_test_split = { type: 'array', prefixItems: [{ type: 'number' }] };
    });
    expect(issues).toContainEqual(
      expect.objectContaining({
        file: STOCK,
        pointer: '/job/bodySchema',
        reason: expect.stringContaining('draft-07'),
      }),
    );
    // The compile checks reuse their ajv instances: the refused schema must not stay in them.
    expect(checkSchemaSources(loadSchemaSources())).toEqual([]);
  });

  it.each<[string, string, (j: Json) => void, Partial<SchemaIssue>]>([
    [
      'meta-schema: an unknown field kind',
      STOCK,
      (j) =>
        (j.forms.model_configurations.schema.properties.training_model_method['x-field'].kind = 'dropdown'),
      {
        pointer: '/forms/model_configurations/schema/properties/training_model_method/x-field/kind',
        reason: expect.stringContaining('must be equal to one of the allowed values'),
      },
    ],
    [
      'meta-schema: an `if` without `required`',
      STOCK,
      (j) => delete j.forms.model_configurations.schema.allOf[0].if.required,
      { pointer: '/forms/model_configurations/schema/allOf/0/if', reason: 'missing required key "required"' },
    ],
    [
      'meta-schema: four use cases',
      STOCK,
      (j) => j.useCases.pop(),
      { pointer: '/useCases', reason: 'must NOT have fewer than 5 items' },
    ],
    [
      'unknown shared definition',
      STOCK,
      (j) => (j.forms.model_configurations.schema.properties.epochs = { $ref: 'defs.json#/$defs/epoch' }),
      {
        pointer: '/forms/model_configurations/schema/properties/epochs/$ref',
        reason: 'unknown shared definition "epoch" (not in defs.json $defs)',
      },
    ],
    [
      'mapping pointer to an undeclared field',
      STOCK,
      (j) => (j.job.body[3].from = '/preprocess/training_feature'),
      { pointer: '/job/body/3/from', reason: '/preprocess/training_feature is not a declared field' },
    ],
    [
      'mapping target missing from the job-body schema',
      STOCK,
      (j) => j.job.body.push({ to: '/extra', const: 1 }),
      { pointer: `/job/body/17/to`, reason: '/extra is not a property of the job-body schema' },
    ],
    [
      'a required body key no entry sets',
      STOCK,
      (j) => j.job.body.splice(1, 1),
      { pointer: '/job/bodySchema/required/1', reason: '"dataset" is required but no mapping entry sets it' },
    ],
    [
      'a default that is not an option',
      STOCK,
      (j) => (j.forms.preprocess.schema.properties.train_test_split.default = 0.65),
      {
        pointer: '/forms/preprocess/schema/properties/train_test_split/default',
        reason: 'default 0.65 is not one of the options [0.5,0.6,0.7,0.8]',
      },
    ],
    [
      'a branch default that is not one of the branch options',
      STOCK,
      (j) =>
        (j.forms.model_configurations.schema.allOf[1].then.properties.training_model_method.default =
          'Quantum'),
      {
        pointer: '/forms/model_configurations/schema/allOf/1/then/properties/training_model_method/default',
        reason: 'default "Quantum" is not one of the options ["LSTM","GRU","RNN"]',
      },
    ],
    [
      'a condition testing a value that is not an option',
      STOCK,
      (j) => (j.forms.model_configurations.schema.allOf[0].if.properties.model_type.const = 'quantum'),
      {
        pointer: '/forms/model_configurations/schema/allOf/0/if/properties/model_type',
        reason: '"quantum" is not an option of "model_type"',
      },
    ],
    [
      'a section naming an unknown field',
      STOCK,
      (j) => j.forms.preprocess.sections[0].fields.push('features'),
      { pointer: '/forms/preprocess/sections/0/fields/4', reason: '"features" is not a field of preprocess' },
    ],
    [
      'a field in no section',
      STOCK,
      (j) => j.forms.preprocess.sections[1].fields.pop(),
      {
        pointer: '/forms/preprocess/schema/properties/missing_values',
        reason: 'field "missing_values" is in no section',
      },
    ],
    [
      'a message for a keyword the field does not use',
      STOCK,
      (j) => (j.forms.model_configurations.schema.errorMessage.required.qubits = 'Qubits is required'),
      {
        pointer: '/forms/model_configurations/schema/errorMessage/required/qubits',
        reason: 'message for "qubits", which is not in "required" here',
      },
    ],
    [
      'an example that does not validate',
      STOCK,
      (j) => (j.example.appData.model_configurations.epochs = 500),
      {
        pointer: '/example/appData/model_configurations/epochs',
        reason: 'example is invalid: Epochs must be less than or equal to 100',
      },
    ],
    [
      'an example holding values of inactive fields',
      BRAIN,
      (j) => (j.example.appData.model_configurations.numQubits = 4),
      {
        pointer: '/example/appData/model_configurations',
        reason: 'example holds values of inactive or undeclared fields',
      },
    ],
    [
      'an example whose job body breaks the job-body schema',
      BRAIN,
      (j) => (j.job.bodySchema.properties.optimizer.enum = ['Adam']),
      {
        pointer: '/job/body',
        reason: expect.stringContaining('/optimizer: must be equal to one of the allowed values'),
      },
    ],
    [
      'an unknown category and output',
      STOCK,
      (j) => {
        j.category = 'finance';
        j.outputs.push('roc_curve');
      },
      { pointer: '/category', reason: 'unknown category "finance" (see categories.json)' },
    ],
    [
      'a problem id that does not match its file name',
      STOCK,
      (j) => (j.id = 'stock-prediction'),
      { pointer: '/id', reason: 'id "stock-prediction" does not match the file name' },
    ],
    [
      'a shared mapping fragment entry a problem cannot satisfy names the $ref and the entry',
      'problems/demand-forecasting.json',
      (j) => j.job.body.push({ $ref: 'defs.json#/$defs/devicePickerMapping' }),
      {
        pointer: `/job/body/12`,
        reason:
          'defs.json#/$defs/devicePickerMapping/0/from: /model_configurations/quantum_device/use_quantum_sim is not a declared field',
      },
    ],
    [
      'a form $ref to something that is not a form',
      STOCK,
      (j) => (j.forms.dataset = { $ref: 'defs.json#/$defs/epochs' }),
      { pointer: '/forms/dataset', reason: '"defs.json#/$defs/epochs" is not a form (schema and sections)' },
    ],
    [
      'a message key platform.json does not have',
      STOCK,
      (j) =>
        (j.forms.model_configurations.schema.properties.training_model_method.errorMessage.type = {
          $message: 'fieldRequird',
        }),
      {
        pointer:
          '/forms/model_configurations/schema/properties/training_model_method/errorMessage/type/$message',
        reason: 'unknown message "fieldRequird" (not in platform.json messages)',
      },
    ],
    [
      'a message written out again where platform.json holds it',
      STOCK,
      (j) =>
        (j.forms.model_configurations.schema.properties.training_model_method.errorMessage.type =
          'This field is required'),
      {
        pointer: '/forms/model_configurations/schema/properties/training_model_method/errorMessage/type',
        reason:
          '"This field is required" is platform.json\'s message "fieldRequired"; write {"$message": "fieldRequired"}',
      },
    ],
    [
      'a form no tab shows (platform.json holds the one tab-to-form list)',
      'platform.json',
      (j) => (j.tabs[0].forms = ['dataset']),
      { pointer: '/tabs', reason: 'no tab shows the form "preprocess"' },
    ],
    [
      'a form two tabs show',
      'platform.json',
      (j) => j.tabs[1].forms.push('preprocess'),
      { pointer: '/tabs/1/forms/1', reason: 'form "preprocess" is already shown by /tabs/0' },
    ],
    [
      'a form branch offering an option the job body refuses',
      STOCK,
      (j) =>
        j.forms.model_configurations.schema.allOf[1].then.properties.training_model_method.enum.push('TCN'),
      {
        pointer: '/job/body/6/from',
        reason:
          '/model_configurations/training_model_method offers "TCN", which the job body refuses (must be equal to one of the allowed values) (the job body\'s /training_model_method)',
      },
    ],
    [
      'a mapping default the job body refuses',
      STOCK,
      (j) => (j.job.bodySchema.properties.qubits = { $ref: 'defs.json#/$defs/qubits' }),
      {
        pointer: '/job/body/10/default',
        reason: "default null is refused by the job body's /qubits: must be integer",
      },
    ],
    [
      'a job-body $ref to an unknown definition',
      STOCK,
      (j) => (j.job.bodySchema.properties.epochs = { $ref: 'defs.json#/$defs/epoch' }),
      {
        pointer: '/job/bodySchema/properties/epochs/$ref',
        reason: 'unknown shared definition "epoch" (not in defs.json $defs)',
      },
    ],
    [
      'a job-body $ref with a rule beside it',
      STOCK,
      (j) => (j.job.bodySchema.properties.epochs.maximum = 50),
      {
        pointer: '/job/bodySchema/properties/epochs/maximum',
        reason: expect.stringContaining('next to a $ref in a job-body schema would be a second rule'),
      },
    ],
  ])('%s', (_name, file, edit, expected) => {
    expect(checkWith(file, edit)).toContainEqual({ file, ...expected });
  });

  describe('job-body limits follow the form', () => {
    it('refuses a form whose epochs reach 200 while the job body stops at 100 (CLI on a copy)', () => {
      const { status, output } = cliOnBrokenCopy();
      expect(status).toBe(1);
      expect(output).toContain(
        "problems/stock-price-prediction.json /job/body/7/from: /model_configurations/epochs admits numbers <= 200, the job body requires <= 100 (the job body's /epochs)",
      );
    });

    it('refuses a shared option list widened for the form only', () => {
      const issues = checkWith(STOCK, (j) => {
        j.forms.model_configurations.schema.properties.model_type = {
          $ref: 'defs.json#/$defs/modelType',
          enum: ['Classical', 'Quantum', 'Hybrid'],
        };
        j.job.bodySchema.properties.training_model_type = { type: 'string', enum: ['Classical', 'Quantum'] };
      });
      expect(issues).toContainEqual({
        file: STOCK,
        pointer: '/job/body/5/from',
        reason:
          '/model_configurations/model_type offers "Hybrid", which the job body refuses (must be equal to one of the allowed values) (the job body\'s /training_model_type)',
      });
    });

    it('accepts a body property that refers to the rule the form uses', () => {
      const issues = checkWith(STOCK, (j) => {
        j.job.bodySchema.properties.epochs = { $ref: 'defs.json#/$defs/epochs' };
      });
      expect(issues).toEqual([]);
    });
  });

  describe('examples agree with the shipped samples (samples/manifest.json)', () => {
    const PORTFOLIO = 'problems/portfolio-optimization.json';
    const FRAUD = 'problems/fraud-detection.json';
    const DEMAND = 'problems/demand-forecasting.json';
    const sampleIssues = (file: string, edit: (json: Json) => void): SchemaIssue[] => {
      const sources = loadSchemaSources();
      const copy = structuredClone(sources[file]) as Json;
      edit(copy);
      return checkExamplesAgainstSamples({ ...sources, [file]: copy }, loadSampleManifest());
    };

    it('the repository examples match the files', () => {
      expect(checkExamplesAgainstSamples(loadSchemaSources(), loadSampleManifest())).toEqual([]);
    });

    it('refuses an example context with the wrong row count (CLI on a copy)', () => {
      const { status, output } = runCheckerOnCopy((sources) => {
        (sources[PORTFOLIO] as Json).example.context.rowCount = 1258;
      });
      expect(status).toBe(1);
      expect(output).toContain(
        'problems/portfolio-optimization.json /example/context/rowCount: 1258, but five_companies_stock.csv has 2699 rows (samples/manifest.json)',
      );
    });

    it('refuses columns the file does not have, in the context and in a selection', () => {
      const issues = sampleIssues(PORTFOLIO, (j) => {
        j.example.context.columns = ['Date', 'AAPL', 'GOOGL', 'MSFT', 'AMZN', 'TSLA'];
        j.example.appData.preprocess.stocks_names = ['AAPL', 'GOOGL', 'MSFT', 'AMZN', 'TSLA'];
      });
      expect(issues).toContainEqual({
        file: PORTFOLIO,
        pointer: '/example/context/columns',
        reason: expect.stringContaining(
          'but five_companies_stock.csv has the columns ["Date","AAPL","AMZN","GOOG","META","NVDA"]',
        ),
      });
      expect(issues).toContainEqual({
        file: PORTFOLIO,
        pointer: '/example/appData/preprocess/stocks_names',
        reason: '"TSLA" is not a column of five_companies_stock.csv (samples/manifest.json)',
      });
    });

    it('refuses a selected column the file lacks even when the context claims it', () => {
      const issues = sampleIssues(DEMAND, (j) => {
        j.example.context.columns.push('demand');
        j.example.appData.preprocess.prediction_feature = 'demand';
      });
      expect(issues).toContainEqual({
        file: DEMAND,
        pointer: '/example/appData/preprocess/prediction_feature',
        reason: '"demand" is not a column of product_demand.csv (samples/manifest.json)',
      });
    });

    it("refuses a sample label that is not the manifest's (the synthetic file says so)", () => {
      const issues = sampleIssues(FRAUD, (j) => {
        j.dataset.samples[0].label = 'Credit Card Fraud Detection';
      });
      expect(issues).toContainEqual({
        file: FRAUD,
        pointer: '/dataset/samples/0/label',
        reason:
          '"Credit Card Fraud Detection" is not samples/manifest.json\'s label "Credit Card Fraud Detection (synthetic)"',
      });
    });

    it('refuses a listed problem whose CSV sample is not shipped', () => {
      const issues = sampleIssues(FRAUD, (j) => {
        j.dataset.samples[0].file = 'credit_card_fraud.csv';
      });
      expect(issues).toContainEqual({
        file: FRAUD,
        pointer: '/dataset/samples/0/file',
        reason: '"credit_card_fraud.csv" is not a shipped sample (not in samples/manifest.json)',
      });
    });
  });

  it('the CLI prints file, pointer and reason and exits 1', () => {
    const { status, output } = cliOnBrokenCopy();
    expect(status).toBe(1);
    expect(output).toContain(
      'problems/fraud-detection.json /forms/model_configurations/schema/properties/repeats/minimun: unknown key "minimun" (not allowed here)',
    );
  });
});
