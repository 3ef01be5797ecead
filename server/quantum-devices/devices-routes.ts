import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { envelope, errorReplies, sendRefusal } from '../platform/reply-schemas';
import type { QuantumDevicesService } from './devices-service';

const devicesData = {
  type: 'object',
  required: ['devices'],
  properties: {
    devices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'qubits', 'status', 'pending_jobs'],
        properties: {
          name: { type: 'string', description: 'The IBM device, e.g. ibm_kyiv' },
          qubits: { type: 'integer' },
          status: { type: 'string', enum: ['online', 'offline'] },
          status_message: { type: 'string' },
          pending_jobs: { type: 'integer', description: "Jobs waiting in the device's queue" },
        },
      },
    },
  },
} as const;

/** `GET /quantum-devices`: the IBM devices the caller's stored token may use, for the picker. */
export const quantumDevicesRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { devices: QuantumDevicesService };
}> = async (app, { devices }) => {
  app.get(
    '/quantum-devices',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['quantum'],
        summary: 'IBM quantum devices the stored token may use: name, qubits, status, pending jobs',
        response: {
          200: envelope(devicesData),
          ...errorReplies(400, 401, 502, 503),
        },
      },
    },
    async (request, reply) => {
      const outcome = await devices.list(request.currentUser!);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.data });
    },
  );
};
