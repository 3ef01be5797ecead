// Noise what-if (issue #12): a finished quantum output re-run under another backend (the ideal simulator, a
// noise model, an IBM device) with the same body, seed, dataset and split, as a new output of the same
// application, so the compare view can put the two side by side. Owner only; the server decides.

import { validateJobBody, type Registry } from '../../src/engine';
import { ApplicationsRepository } from '../applications/applications-repository';
import type { UserRecord } from '../auth/users-repository';
import type { Database } from '../db/database';
import { JobStatus } from '../jobs/job-states';
import { JobsRepository } from '../jobs/jobs-repository';
import type { JobsService } from '../jobs/jobs-service';
import type { AccountsService } from '../accounts/accounts-service';
import { OUTPUT_NOT_FOUND } from './outputs-service';
import {
  backendNames,
  backendOf,
  parseBackend,
  sameBackend,
  withBackend,
  type WhatIfBackend,
} from './what-if-backend';

export const NOT_QUANTUM =
  'Only a quantum output can be re-run under another backend: this one ran no circuit.';
export const NOT_FINISHED =
  'Only a Completed output can be re-run under another backend: this one is {status}.';
export const SAME_BACKEND = 'The output already ran on {label}: choose another backend.';
export const DEVICE_NEEDS_TOKEN =
  'Running on the IBM device {device} needs an IBM Quantum token: add yours in your profile first.';

export interface WhatIfChoices {
  /** Whether this output may be re-run: Completed and quantum. */
  available: boolean;
  /** Where the output ran. */
  backend: WhatIfBackend;
  noise_models: string[];
  devices: string[];
}

type Refusal = {
  ok: false;
  status: 400 | 404;
  detail: string;
  errors?: { field: string; message: string }[];
};
export type WhatIfOutcome = { ok: true; outputId: number; name: string } | Refusal;

const bad = (detail: string): Refusal => ({
  ok: false,
  status: 400,
  detail,
  errors: [{ field: '/backend', message: detail }],
});
const notFound: Refusal = { ok: false, status: 404, detail: OUTPUT_NOT_FOUND };

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

  /** Where the output ran and the backends its problem's device picker offers. */
  async choices(caller: UserRecord, outputId: number): Promise<{ ok: true; value: WhatIfChoices } | Refusal> {
    const found = await this.owned(caller, outputId);
    if (!found) return notFound;
    const names = backendNames(found.problem);
    return {
      ok: true,
      value: {
        available: found.job.status === JobStatus.completed && found.job.result?.model_type === 'Quantum',
        backend: backendOf(found.job.params, found.job.extension ?? {}),
        noise_models: [...names.noiseModels],
        devices: [...names.devices],
      },
    };
  }

  async rerun(caller: UserRecord, outputId: number, requested: unknown): Promise<WhatIfOutcome> {
    const found = await this.owned(caller, outputId);
    if (!found) return notFound;
    const { job, problem } = found;
    if (job.status !== JobStatus.completed) return bad(NOT_FINISHED.replace('{status}', job.status));
    if (job.result?.model_type !== 'Quantum') return bad(NOT_QUANTUM);
    const parsed = parseBackend(requested, backendNames(problem));
    if (!parsed.ok) return bad(parsed.message);
    const extension = job.extension ?? {};
    if (sameBackend(backendOf(job.params, extension), parsed.backend)) {
      return bad(SAME_BACKEND.replace('{label}', parsed.label));
    }
    if (typeof parsed.backend === 'object' && 'device' in parsed.backend) {
      const customToken = job.params.actual_quantum_device_token;
      const stored = await this.deps.accounts.providerToken(caller, caller.id);
      const hasToken =
        (typeof customToken === 'string' && customToken !== '') || (stored.ok && !!stored.token);
      if (!hasToken) return bad(DEVICE_NEEDS_TOKEN.replace('{device}', parsed.backend.device));
    }
    const app = await this.applications.find(Number(job.application_id));
    if (!app || app.user_id !== caller.id) return notFound;

    const next = withBackend({ params: job.params, extension, appData: job.app_data }, parsed.backend);
    const check = validateJobBody(problem, next.params);
    if (!check.valid) {
      const first = check.errors[0]!;
      return bad(`The re-run's body is refused at ${first.path}: ${first.message}`);
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
