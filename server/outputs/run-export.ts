// A completed training output as code: a Python script and a Jupyter notebook (nbformat 4) that train the
// same run again with the worker package. They hold the job body after defaults (the run record's
// config), the envelope's extension without this server's paths, the seed, the dataset's sha256 and the
// library versions recorded at run time, and call the worker's own run_job, the function
// `python -m qmlstudio_worker run` calls for every job: the export carries no training code of its own.
// The checks (dataset hash, versions) use the standard library only, so a wrong file or a different
// library is refused before torch or qiskit are imported. An IBM device run's token is never written: the
// body's custom token is left out and the script reads the token from QISKIT_IBM_TOKEN when it runs.

import path from 'node:path';
import { isPlainObject } from '../../src/engine';
import { definedMetrics, jobResultOf } from '../jobs/job-result';
import type { JobRecord } from '../jobs/jobs-repository';

export const EXPORT_NOT_TRAINING = 'Only a completed training output can be exported as code';

/** The variable qiskit-ibm-runtime reads the IBM Quantum API key from; the exported script reads it too. */
export const IBM_TOKEN_VARIABLE = 'QISKIT_IBM_TOKEN';
/** The job body's custom IBM token (the form's 'Use Custom IBM Token'): never exported. */
const BODY_TOKEN_FIELD = 'actual_quantum_device_token';
/** The owner's stored token as the server adds it to a device run's envelope: never exported. */
const EXTENSION_TOKEN_FIELD = 'ibm_token';

/** The IBM device a body ran on (use_quantum_simulator false), null for a simulator run. */
export function ibmDeviceOf(body: Record<string, unknown>): string | null {
  const device = body.quantum_device_backend;
  return body.use_quantum_simulator === false && typeof device === 'string' && device ? device : null;
}

/** A device name in prose (docstring, Markdown): IBM's names are letters, digits and '_'; others are masked. */
const deviceText = (device: string) => device.replace(/[^A-Za-z0-9_.-]/g, '?');

/** The body and extension as exported: a token in either is replaced by null / left out. */
function withoutTokens(run: ExportedRun): {
  body: Record<string, unknown>;
  extension: Record<string, unknown>;
} {
  const { [EXTENSION_TOKEN_FIELD]: _stored, ...extension } = run.extension;
  const body = BODY_TOKEN_FIELD in run.body ? { ...run.body, [BODY_TOKEN_FIELD]: null } : run.body;
  return { body, extension };
}

/** What the export is made of, read from the output. */
export interface ExportedRun {
  outputId: number;
  outputName: string;
  applicationName: string;
  kind: string;
  model: string;
  /** The job body after defaults, as the worker recorded it. */
  body: Record<string, unknown>;
  /** The envelope's extension without the dataset's path and file-store key (this server's). */
  extension: Record<string, unknown>;
  seed: number;
  datasetSha256: string;
  datasetLabel: string;
  /** `samples/<file>` for a shipped sample (every checkout has it), else null (the user's own file). */
  shippedDataset: string | null;
  versions: Record<string, string>;
  metrics: Record<string, number>;
  baseline: { name: string; metrics: Record<string, number> } | null;
  recordedAt: string;
}

/**
 * The run to export, or why there is none: an output that is not Completed, a prediction, or a result
 * without the run record (the body after defaults, seed, dataset hash and versions) or without a dataset.
 */
export function exportedRunOf(
  job: JobRecord,
  applicationName: string,
): { ok: true; run: ExportedRun } | { ok: false; detail: string } {
  const refuse = (why: string) => ({ ok: false as const, detail: `${EXPORT_NOT_TRAINING}: ${why}.` });
  if (job.status !== 'Completed') return refuse(`this output is ${job.status}`);
  const result = jobResultOf(job);
  if (!result) return refuse('this output has no result to reproduce');
  if (result.output_data?.result_type === 'Prediction') return refuse('this output is a prediction');
  const record = result.run_record;
  const dataset = isPlainObject(job.extension.dataset) ? job.extension.dataset : null;
  const sha256 = record?.dataset_sha256 ?? (typeof dataset?.sha256 === 'string' ? dataset.sha256 : null);
  if (!record || !dataset || !sha256) {
    return refuse('its result does not record the body, seed, dataset and library versions it ran with');
  }
  const { path: datasetPath, key, ...facts } = dataset;
  const shippedDataset =
    key === undefined && typeof datasetPath === 'string' && /[\\/]samples[\\/][^\\/]+$/.test(datasetPath)
      ? `samples/${path.basename(datasetPath)}`
      : null;
  return {
    ok: true,
    run: {
      outputId: job.id,
      outputName: job.name ?? `${applicationName} #${job.id}`,
      applicationName,
      kind: job.kind,
      model: result.model,
      body: record.config,
      extension: { ...job.extension, dataset: facts, seed: record.seed },
      seed: record.seed,
      datasetSha256: sha256,
      datasetLabel: typeof facts.label === 'string' ? facts.label : 'the dataset',
      shippedDataset,
      versions: record.versions,
      metrics: definedMetrics(result.metrics),
      baseline: result.baseline
        ? { name: result.baseline.name, metrics: definedMetrics(result.baseline.metrics) }
        : null,
      recordedAt: record.recorded_at,
    },
  };
}

/** The download's file name without extension: the application's name in safe characters, and the output. */
export function exportFileBase(run: Pick<ExportedRun, 'applicationName' | 'outputId'>): string {
  const safe = run.applicationName
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60)
    .replace(/_+$/, '');
  return `${safe || 'qmlstudio_run'}_output_${run.outputId}`;
}

/** Content-Disposition for a file name exportFileBase made (ASCII only by construction). */
export const attachmentOf = (fileName: string) => `attachment; filename="${fileName}"`;

// ---------------------------------------------------------------------------------------------------
// Python source

/** A JSON value as a Python literal (None/True/False; JSON's string escapes are valid in Python). */
export function pythonLiteral(value: unknown, indent = 0): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`not a JSON number: ${value}`);
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  const pad = ' '.repeat(indent + 4);
  const entries: string[] = Array.isArray(value)
    ? value.map((item) => pythonLiteral(item, indent + 4))
    : Object.entries(value as Record<string, unknown>).map(
        ([key, item]) => `${JSON.stringify(key)}: ${pythonLiteral(item, indent + 4)}`,
      );
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return `${open}${close}`;
  const inline = `${open}${entries.join(', ')}${close}`;
  if (!inline.includes('\n') && indent + inline.length <= 96) return inline;
  return `${open}\n${entries.map((entry) => `${pad}${entry},`).join('\n')}\n${' '.repeat(indent)}${close}`;
}

/** Text from the user (an application name) safe in a one-line Python comment or Markdown. */
const oneLine = (text: string) => text.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();
const markdownText = (text: string) =>
  oneLine(text).replace(/[&<>[\]*_`\\#|]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : `\\${c}`));

function constantsSource(run: ExportedRun): string {
  const { body, extension } = withoutTokens(run);
  return `import hashlib
import json
import os
import platform
import sys
import tempfile
from importlib import metadata, util
from pathlib import Path

# The run as QML Studio recorded it.
OUTPUT_ID = ${run.outputId}
KIND = ${pythonLiteral(run.kind)}
# The job body after defaults (the worker fills the same defaults again: nothing changes).
JOB_BODY = ${pythonLiteral(body)}
# What the server sent beside the body: preprocessing, the seed and the dataset's facts (its path is yours).
EXTENSION = ${pythonLiteral(extension)}
SEED = ${run.seed}
DATASET_SHA256 = ${pythonLiteral(run.datasetSha256)}
# A shipped sample is found in the QML Studio checkout; your own file must be given.
SHIPPED_DATASET = ${pythonLiteral(run.shippedDataset)}
# The libraries the run used (qmlstudio_worker's run record).
RECORDED_VERSIONS = ${pythonLiteral(run.versions)}
# What the output showed, to compare with.
OUTPUT_METRICS = ${pythonLiteral(run.metrics)}
OUTPUT_BASELINE = ${pythonLiteral(run.baseline)}
# The IBM device the run used (None: a simulator). Its IBM Quantum token is not in this file: it is read
# from the environment variable below when the script runs (channel ibm_quantum_platform, as the run's).
IBM_DEVICE = ${pythonLiteral(ibmDeviceOf(run.body))}
IBM_TOKEN_VARIABLE = ${pythonLiteral(IBM_TOKEN_VARIABLE)}
`;
}

const HELPERS_SOURCE = `class RunRefused(Exception):
    """A check failed: the message says what differs and what to do."""


def find_dataset(given=None):
    """The dataset file: the one given, else the shipped sample here or in the QML Studio checkout."""
    if given:
        return Path(given).expanduser()
    if SHIPPED_DATASET is None:
        raise RunRefused(
            f"This run trained on your own file ({EXTENSION['dataset'].get('label')}); "
            "give its path with --dataset PATH."
        )
    candidates = [Path.cwd() / SHIPPED_DATASET]
    spec = util.find_spec("qmlstudio_worker")
    if spec is not None and spec.origin is not None:
        # qmlstudio_worker/__init__.py is in worker/ of the checkout, beside samples/.
        candidates.append(Path(spec.origin).resolve().parents[2] / SHIPPED_DATASET)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return candidates[0]


def check_dataset(dataset):
    """Refuse any file but the one the run trained on (by its sha256)."""
    if not dataset.is_file():
        raise RunRefused(f"No dataset file at {dataset}; give the run's file with --dataset PATH.")
    digest = hashlib.sha256()
    with dataset.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    if digest.hexdigest() != DATASET_SHA256:
        raise RunRefused(
            f"{dataset} is not the dataset this run trained on: its sha256 is {digest.hexdigest()}, "
            f"the run's is {DATASET_SHA256}. Give the run's file with --dataset PATH."
        )


def device_token():
    """A device run's IBM Quantum token, read from the environment now (None for a simulator run)."""
    if IBM_DEVICE is None:
        return None
    token = os.environ.get(IBM_TOKEN_VARIABLE, "").strip()
    if token:
        return token
    if os.environ.get("QMLSTUDIO_IBM_LOCAL_TESTING") == "1":
        return None  # the worker's local testing mode: the device's fake backend, no token sent
    raise RunRefused(
        f"This run ran on the IBM device {IBM_DEVICE} and needs your IBM Quantum API key: set the "
        f"environment variable {IBM_TOKEN_VARIABLE} (e.g. {IBM_TOKEN_VARIABLE}=... python {Path(sys.argv[0]).name}). "
        "The script never holds the key."
    )


def installed_version(key):
    if key == "python":
        return platform.python_version()
    try:
        return metadata.version(key.replace("_", "-"))
    except metadata.PackageNotFoundError:
        return "not installed"


def version_differences():
    """[(library, the run's version, this Python's version)] for each library that differs."""
    found = ((key, recorded, installed_version(key)) for key, recorded in RECORDED_VERSIONS.items())
    return [(key, recorded, here) for key, recorded, here in found if here != recorded]


def check_versions(ignore=False):
    """Refuse to train with other library versions (the numbers could differ), unless told to go on."""
    differences = version_differences()
    if not differences:
        return
    lines = "\\n".join(f"  {key}: the run had {was}, this Python has {now}" for key, was, now in differences)
    if not ignore:
        raise RunRefused(
            f"The libraries differ from the run's:\\n{lines}\\nInstall the run's versions (the worker's "
            "requirements.lock) or run anyway with --ignore-versions (metrics may then differ)."
        )
    print(f"Warning: the libraries differ from the run's; metrics may differ:\\n{lines}", file=sys.stderr)


class ProtocolLines:
    """The worker's protocol lines: logs and progress shown on stderr, the result (or error) kept."""

    def __init__(self):
        self.pending = ""
        self.final = None

    def write(self, text):
        self.pending += text
        *lines, self.pending = self.pending.split("\\n")
        for line in lines:
            message = json.loads(line)
            if message["type"] in ("result", "error"):
                self.final = message
            elif message["type"] == "log":
                print(f"[{message['level']}] {message['message']}", file=sys.stderr)
            elif message["type"] == "progress":
                print(f"{message['percent']:5.1f}% {message['stage']}", file=sys.stderr)
        return len(text)

    def flush(self):
        pass


def train(dataset, output_dir=None, token=None):
    """Train the run again: the worker's run_job, as the QML Studio job runner calls it, on this dataset.
    token (a device run's, from device_token) goes where the server puts the owner's stored token."""
    from qmlstudio_worker.jobs.runner import run_job
    from qmlstudio_worker.protocol import Emitter

    with tempfile.TemporaryDirectory(prefix="qmlstudio-run-") as scratch:
        envelope = {
            "kind": KIND,
            "job_id": f"export-{OUTPUT_ID}",
            "params": JOB_BODY,
            "output_dir": str(output_dir or scratch),
            "extension": {**EXTENSION, "dataset": {**EXTENSION["dataset"], "path": str(dataset.resolve())}},
        }
        if token:
            envelope["extension"]["ibm_token"] = token
        lines = ProtocolLines()
        run_job(json.dumps(envelope), Emitter(lines))
    if lines.final is None or lines.final["type"] != "result":
        raise RuntimeError((lines.final or {}).get("message", "The worker wrote no result."))
    return lines.final["data"]


def metrics_line(result):
    """The metrics the output shows, as one JSON line."""
    baseline = result.get("baseline")
    return json.dumps(
        {
            "output_id": OUTPUT_ID,
            "metrics": {k: v for k, v in result["metrics"].items() if v is not None},
            "baseline": baseline
            and {
                "name": baseline["name"],
                "metrics": {k: v for k, v in baseline["metrics"].items() if v is not None},
            },
        }
    )


def compare_with_output(result):
    """Each metric of this run beside the output's."""
    print(f"{'metric':<28}{'this run':>16}{'the output':>16}", file=sys.stderr)
    for name, shown in OUTPUT_METRICS.items():
        now = result["metrics"].get(name)
        print(f"{name:<28}{now if now is not None else '-':>16}{shown:>16}", file=sys.stderr)
`;

const MAIN_SOURCE = `def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--dataset",
        metavar="PATH",
        help=f"the run's dataset, checked by its sha256 (default: {SHIPPED_DATASET or 'none: your file'})",
    )
    parser.add_argument(
        "--ignore-versions",
        action="store_true",
        help="train even when the installed libraries differ from the run's (metrics may differ)",
    )
    parser.add_argument("--output-dir", metavar="DIR", help="keep the trained model in DIR")
    args = parser.parse_args(argv)
    try:
        token = device_token()
        dataset = find_dataset(args.dataset)
        check_dataset(dataset)
        check_versions(args.ignore_versions)
    except RunRefused as refusal:
        print(f"Refused: {refusal}", file=sys.stderr)
        return 2
    try:
        result = train(dataset, args.output_dir, token)
    except RuntimeError as failure:
        print(f"The training failed: {failure}", file=sys.stderr)
        return 1
    compare_with_output(result)
    print(metrics_line(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
`;

function summary(run: ExportedRun): string[] {
  return [
    `Output ${run.outputId} (${oneLine(run.outputName)}) of ${oneLine(run.applicationName)}: ${run.kind}, ${oneLine(run.model)}.`,
    `Recorded ${oneLine(run.recordedAt)}; seed ${run.seed}; dataset ${oneLine(run.datasetLabel)},`,
    `sha256 ${run.datasetSha256}.`,
  ];
}

/** The Python script: `python <file> [--dataset PATH] [--ignore-versions] [--output-dir DIR]`. */
export function exportScript(run: ExportedRun): string {
  const file = `${exportFileBase(run)}.py`;
  const usage = run.shippedDataset
    ? `python ${file} [--dataset PATH]\n(the dataset defaults to ${run.shippedDataset}, here or in the QML Studio checkout)`
    : `python ${file} --dataset PATH/TO/YOUR/FILE`;
  const device = ibmDeviceOf(run.body);
  const deviceNote = device
    ? `\nThe run ran on the IBM device ${deviceText(device)}: set ${IBM_TOKEN_VARIABLE} to your IBM Quantum API key first\n(read when the script runs; the script never holds it).`
    : '';
  return `#!/usr/bin/env python3
"""Train QML Studio output ${run.outputId} again with the qmlstudio_worker package and print its metrics.

Run it with the Python of the QML Studio worker (worker/.venv/bin/python, which has qmlstudio_worker):
    ${usage}
It checks the dataset against the run's sha256 and the installed libraries against the run's versions,
trains through the worker's run_job (what the platform runs for every job) with the same body and seed,
shows each metric beside the output's on stderr, and prints the metrics as one JSON line on stdout.${deviceNote}
"""

${summary(run)
  .map((line) => `# ${line}`)
  .join('\n')}

${constantsSource(run)}

${HELPERS_SOURCE}

${MAIN_SOURCE}`;
}

type Cell =
  | { cell_type: 'markdown'; id: string; metadata: Record<string, never>; source: string[] }
  | {
      cell_type: 'code';
      id: string;
      metadata: Record<string, never>;
      execution_count: null;
      outputs: [];
      source: string[];
    };

/** nbformat keeps a cell's text as lines, each but the last ending in a newline. */
const sourceLines = (text: string) => text.replace(/\n+$/, '').split(/(?<=\n)/);

/** The notebook: the script's steps in cells, each after a short explanation; nbformat 4.5 JSON. */
export function exportNotebook(run: ExportedRun): string {
  const cells: Cell[] = [];
  const markdown = (text: string) =>
    cells.push({
      cell_type: 'markdown',
      id: `cell-${cells.length + 1}`,
      metadata: {},
      source: sourceLines(text),
    });
  const code = (text: string) =>
    cells.push({
      cell_type: 'code',
      id: `cell-${cells.length + 1}`,
      metadata: {},
      execution_count: null,
      outputs: [],
      source: sourceLines(text),
    });
  const [first, ...rest] = summary(run).map(markdownText);
  markdown(
    `# ${markdownText(run.outputName)}: trained again\n\n${first}\n\n${rest.join(' ')}\n\n` +
      'Run this notebook with the Python of the QML Studio worker (`worker/.venv/bin/python`, which has ' +
      'the `qmlstudio_worker` package). It trains through the same worker function the platform runs ' +
      'for every job.',
  );
  markdown(
    'The run as QML Studio recorded it: the job body after defaults, the seed, the dataset hash, the library versions and the metrics the output showed.',
  );
  code(constantsSource(run));
  markdown('The checks and the training step, as functions.');
  code(HELPERS_SOURCE);
  markdown(
    '## 1. The dataset\n\nThe file must be the one the run trained on: its sha256 is checked. ' +
      (run.shippedDataset
        ? `Without a path, the shipped sample \`${run.shippedDataset}\` is looked for here and in the QML Studio checkout.`
        : 'Put the path of your copy of the file in `DATASET_PATH`.'),
  );
  code(
    `DATASET_PATH = None  # or the path of your copy, e.g. "data/my-file.csv"\ndataset = find_dataset(DATASET_PATH)\ncheck_dataset(dataset)\nprint(dataset)`,
  );
  markdown(
    '## 2. Library versions\n\nOther versions can give other numbers: a difference stops here. Set `IGNORE_VERSIONS = True` to train anyway.',
  );
  code('IGNORE_VERSIONS = False\ncheck_versions(IGNORE_VERSIONS)');
  const device = ibmDeviceOf(run.body);
  markdown(
    '## 3. Train\n\nThe worker validates the body, fills its defaults, seeds every generator and trains.' +
      (device
        ? ` The run ran on the IBM device ${deviceText(device)}: set the environment variable \`${IBM_TOKEN_VARIABLE}\` to your IBM Quantum API key before starting Jupyter (the notebook never holds it).`
        : ''),
  );
  code('result = train(dataset, token=device_token())');
  markdown("## 4. Metrics\n\nEach metric beside the output's, then all of them as one JSON line.");
  code('compare_with_output(result)\nprint(metrics_line(result))');
  return `${JSON.stringify(
    {
      cells,
      metadata: {
        kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
        language_info: { name: 'python' },
      },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  )}\n`;
}
