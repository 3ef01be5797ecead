import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { MAX_ID } from '../platform/id-schemas';
import { BODY_ERRORS, envelope, errorReplies, sendRefusal } from '../platform/reply-schemas';
import type { EstimateBody, ResourceEstimateService } from './estimate-service';

const params = {
  type: 'object',
  additionalProperties: false,
  required: ['userId'],
  properties: {
    userId: { type: 'integer', minimum: 1, maximum: MAX_ID, description: "The caller's user id" },
  },
} as const;

const body = {
  type: 'object',
  additionalProperties: false,
  required: ['params'],
  properties: {
    params: {
      type: 'object',
      description: "The job body execute-job would take (the problem file's job mapping of the form)",
    },
    rows: {
      type: 'integer',
      minimum: 1,
      maximum: 100000000,
      description:
        "The dataset's data rows: scales the per-row models (without it they are reported per row)",
    },
    noise_model: {
      type: ['string', 'null'],
      maxLength: 100,
      description:
        "The job extension's quantum_noise_model ('None' or null: none): the circuit is transpiled for that device snapshot",
    },
    repeats: {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      description:
        "The job extension's repeats (runs with consecutive seeds): all_repeats holds the totals of all of them",
    },
  },
} as const;

const nullableInteger = { type: ['integer', 'null'] } as const;

const estimateData = {
  type: 'object',
  required: ['problem', 'model', 'qubits', 'depth', 'two_qubit_gates'],
  properties: {
    problem: { type: 'string' },
    model: { type: 'string' },
    backend: { type: ['string', 'null'] },
    noise_model: { type: ['string', 'null'], description: 'The noise model the estimate is for' },
    device: {
      type: ['string', 'null'],
      description: 'The IBM device the estimate is for (its offline snapshot)',
    },
    qubits: { type: 'integer' },
    parameters: { type: 'integer' },
    depth: {
      type: 'integer',
      description:
        "Depth as the run applies the circuit: in u and cx gates on the ideal simulators (as the run logs it), transpiled for a noise model's or device's snapshot",
    },
    two_qubit_gates: { type: 'integer', description: 'Two-qubit gates, counted as depth is' },
    gate_counts: { type: 'object', additionalProperties: { type: 'integer' } },
    transpiled_for: { type: 'string', description: 'What depth and gates were counted for' },
    evaluations_per_iteration: {
      ...nullableInteger,
      description: 'Circuit evaluations per optimizer iteration or epoch',
    },
    evaluation_unit: { type: 'string' },
    iterations: { type: 'integer' },
    circuit_evaluations: nullableInteger,
    shots_per_evaluation: nullableInteger,
    total_shots: { ...nullableInteger, description: 'null on the exact statevector simulators' },
    simulation: { type: 'string' },
    estimated_seconds: {
      type: ['number', 'null'],
      description: "Run time from a timing of the worker's simulation on this machine (null: not simulable)",
    },
    optimizer_evaluations: {
      ...nullableInteger,
      description: "The optimizer's objective evaluations over the run (SPSA's calibration included)",
    },
    simulator_calls: {
      ...nullableInteger,
      description: 'Under a noise model: the noisy simulator calls the run makes (null: not planned)',
    },
    noisy_circuits_run: {
      ...nullableInteger,
      description: 'Under a noise model: the circuits those simulator calls run (null: not planned)',
    },
    rows: nullableInteger,
    note: { type: ['string', 'null'] },
    repeats: { type: 'integer', description: 'The runs the job makes (the figures above are per run)' },
    all_repeats: {
      type: 'object',
      description:
        "The run's totals times repeats (null where the run's own figure is null): what all the runs spend",
      properties: {
        circuit_evaluations: nullableInteger,
        total_shots: nullableInteger,
        estimated_seconds: { type: ['number', 'null'] },
        optimizer_evaluations: nullableInteger,
        simulator_calls: nullableInteger,
        noisy_circuits_run: nullableInteger,
        noisy_training_rows: nullableInteger,
      },
    },
  },
} as const;

/**
 * `POST /{problem}/resource-estimate/{userId}` for every problem with a job: qubits, depth and
 * two-qubit gates as the run applies the circuit, evaluations, shots and an estimated run time, before running.
 */
export const resourceEstimateRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { estimates: ResourceEstimateService };
}> = async (app, { estimates }) => {
  for (const problem of estimates.problems()) {
    app.post(
      `/${problem.id}/resource-estimate/:userId`,
      {
        onRequest: app.requireUser,
        schema: {
          tags: ['quantum'],
          summary: `${problem.name}: resources of the quantum circuit a job body would run`,
          params,
          body,
          response: {
            200: envelope(estimateData),
            ...errorReplies(...BODY_ERRORS, 401, 404, 502),
          },
        },
      },
      async (request, reply) => {
        const outcome = await estimates.estimate(
          request.currentUser!,
          problem.id,
          request.params.userId,
          request.body as EstimateBody,
        );
        if (!outcome.ok) return sendRefusal(reply, outcome);
        return reply.code(200).send({ success: true, data: outcome.data });
      },
    );
  }
};
