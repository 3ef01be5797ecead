// Noise what-if: a finished quantum output re-run under another backend (the ideal simulator, a
// noise model, an IBM device) with the same body, seed, dataset and split, as a new output of the same
// application, so the compare view can put the two side by side. Owner only; the server decides.

import {
  validateAppData,
  validateJobBody,
  type AppData,
  type Problem,
  type Registry,
} from '../../src/engine';
import { ApplicationsRepository } from '../applications/applications-repository';
import type { UserRecord } from '../auth/users-repository';
import type { Database } from '../db/database';
import { jobResultOf } from '../jobs/job-result';
import { JobStatus } from '../jobs/job-states';
import { JobsRepository } from '../jobs/jobs-repository';
import type { JobsService } from '../jobs/jobs-service';
import type { AccountsService } from '../accounts/accounts-service';
import { OUTPUT_NOT_FOUND } from './outputs-service';
import {
  backendLabel,
  backendNames,
  backendOf,
  parseBackend,
  sameBackend,
  withBackend,
  type BackendChoice,
  type RunParts,
  type WhatIfBackend,
} from './what-if-backend';

export const NOT_QUANTUM =
  'Only a quantum output can be re-run under another backend: this one ran no circuit.';
export const NOT_FINISHED =
  'Only a Completed output can be re-run under another backend: this one is {status}.';
export const SAME_BACKEND = 'The output already ran on this backend ({label}): choose another one.';
export const DEVICE_NEEDS_TOKEN =
  'Running on the IBM device {device} needs an IBM Quantum token: add yours in your profile first.';

/** A backend of the menu; `refused` is the schema's reason when the re-run's configuration breaks a rule. */
export interface WhatIfChoice extends BackendChoice {
  refused?: string;
}

export interface WhatIfChoices {
  /** Whether this output may be re-run: Completed and quantum. */
  available: boolean;
  /** Where the output ran, and its label. */
  backend: WhatIfBackend;
  backend_label: string;
  noise_models: WhatIfChoice[];
  devices: WhatIfChoice[];
}

type FieldRefusal = { field: string; message: string };
type Refusal = {
  ok: false;
  status: 400 | 404;
  detail: string;
  errors?: FieldRefusal[];
};
export type WhatIfOutcome = { ok: true; outputId: number; name: string } | Refusal;

const bad = (detail: string, errors: FieldRefusal[] = [{ field: '/backend', message: detail }]): Refusal => ({
  ok: false,
  status: 400,
  detail,
  errors,
});
const notFound: Refusal = { ok: false, status: 404, detail: OUTPUT_NOT_FOUND };

/**
 * The re-run's configuration through the engine's own validation, as save and run check it: the saved
 * app_data with the new backend applied (the schema's rules, e.g. ADAM refused on a real device), and the
 * job body. Null when it passes, else the refusal naming the field.
 */
export function refusalOf(problem: Problem, next: RunParts): Refusal | null {
  if (next.appData) {
    const check = validateAppData(problem, next.appData as AppData);
    if (!check.valid) {
      const first = check.errors[0]!;
      return bad(
        `${first.label ?? first.field}: ${first.message}`,
        check.errors.map((error) => ({ field: error.path, message: error.message })),
      );
    }
  }
  const body = validateJobBody(problem, next.params);
  if (!body.valid) {
    const first = body.errors[0]!;
    return bad(`The re-run's body is refused at ${first.path}: ${first.message}`);
  }
  return null;
}

export class WhatIfService {
  private readonly jobsRepository: JobsRepository;
  private readonly applications: ApplicationsRepository;

  constructor(
    private readonly deps: {
      db: Database;
      registry: Registry;
      jobs: JobsService;
      /** The owner's stored IBM token (a device what-if needs one unless the body carries its own). */
      accounts: Pick<AccountsService, 'providerToken'>;
    },
  ) {
    this.jobsRepository = new JobsRepository(deps.db);
    this.applications = new ApplicationsRepository(deps.db);
  }

  /** The caller's own output (an admin re-runs nothing of someone else's: 404 like a stranger). */
  private async owned(caller: UserRecord, outputId: number) {
    const job = await this.jobsRepository.find(outputId);
    if (!job || job.application_id === null || job.owner_id !== caller.id) return null;
    const problem = this.deps.registry.findProblem(job.kind);
    return problem ? { job, problem } : null;
  }

  /**
   * Where the output ran and the backends its problem's device picker offers, labelled as the form labels
   * them; a backend the re-run's configuration may not use says why (the same check as the re-run).
   */
  async choices(caller: UserRecord, outputId: number): Promise<{ ok: true; value: WhatIfChoices } | Refusal> {
    const found = await this.owned(caller, outputId);
    if (!found) return notFound;
    const { job, problem } = found;
    const names = backendNames(problem);
    const backend = backendOf(job.params, job.extension ?? {});
    const parts = { params: job.params, extension: job.extension ?? {}, appData: job.app_data };
    const choice = (option: BackendChoice, to: WhatIfBackend): WhatIfChoice => {
      const refusal = refusalOf(problem, withBackend(parts, to));
      return refusal ? { ...option, refused: refusal.errors?.[0]?.message ?? refusal.detail } : { ...option };
    };
    return {
      ok: true,
      value: {
        available: job.status === JobStatus.completed && jobResultOf(job)?.model_type === 'Quantum',
        backend,
        backend_label: backendLabel(backend, names),
        noise_models: names.noiseModels.map((option) => choice(option, { noise_model: option.name })),
        devices: names.devices.map((option) => choice(option, { device: option.name })),
      },
    };
  }

  async rerun(caller: UserRecord, outputId: number, requested: unknown): Promise<WhatIfOutcome> {
    const found = await this.owned(caller, outputId);
    if (!found) return notFound;
    const { job, problem } = found;
    if (job.status !== JobStatus.completed) return bad(NOT_FINISHED.replace('{status}', job.status));
    if (jobResultOf(job)?.model_type !== 'Quantum') return bad(NOT_QUANTUM);
    const parsed = parseBackend(requested, backendNames(problem));
    if (!parsed.ok) return bad(parsed.message);
    const extension = job.extension ?? {};
    if (sameBackend(backendOf(job.params, extension), parsed.backend)) {
      return bad(SAME_BACKEND.replace('{label}', parsed.label));
    }
    const app = await this.applications.find(Number(job.application_id));
    if (!app || app.user_id !== caller.id) return notFound;

    // The schema's rules first (the configuration), then the account (a device needs a token).
    const next = withBackend({ params: job.params, extension, appData: job.app_data }, parsed.backend);
    const refusal = refusalOf(problem, next);
    if (refusal) return refusal;
    if (typeof parsed.backend === 'object' && 'device' in parsed.backend) {
      const customToken = job.params.actual_quantum_device_token;
      const stored = await this.deps.accounts.providerToken(caller, caller.id);
      const hasToken =
        (typeof customToken === 'string' && customToken !== '') || (stored.ok && !!stored.token);
      if (!hasToken) return bad(DEVICE_NEEDS_TOKEN.replace('{device}', parsed.backend.device));
    }
    const name = `${app.app_name} #{id} (what-if: ${parsed.label})`;
    const created = await this.deps.jobs.submit(caller, job.kind, next.params, {
      applicationId: app.id,
      ...(next.appData && { appData: next.appData }),
      extension: next.extension,
      name,
    });
    return { ok: true, outputId: created.id, name: created.name ?? name };
  }
}
