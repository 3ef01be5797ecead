import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import websocket from '@fastify/websocket';
import type { Plugin } from 'ajv';
import ajvErrors from 'ajv-errors';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AccountsService } from './accounts/accounts-service';
import type { ApplicationsService } from './applications/applications-service';
import type { AdminService } from './admin/admin-service';
import { authPlugin } from './auth/auth-plugin';
import type { AuthService } from './auth/auth-service';
import type { ContactService } from './contact/contact-service';
import type { Database } from './db/database';
import type { DatasetServices } from './datasets/datasets';
import type { DemoResultsData } from './demo-data/demo-results-data';
import type { LoginThrottle } from './auth/login-throttle';
import { fastifyTrustProxy, type Config } from './config';
import type { AnalysisService } from './analysis/analysis-service';
import { predictionSocket } from './stock-demo/prediction-socket';
import type { PredictionService } from './stock-demo/prediction-service';
import { trackingRoutes } from './tracking/tracking-routes';
import type { TrackingService } from './tracking/tracking-service';
import type { MarketData } from './market-data/market-data';
import type { PredictService } from './predict/predict-service';
import type { InferenceService } from './inference/inference-service';
import type { OutputsService } from './outputs/outputs-service';
import type { QuantumDevicesService } from './quantum-devices/devices-service';
import type { ResourceEstimateService } from './quantum-estimate/estimate-service';
import type { WorkerRuntimeCheck } from './health/worker-runtime';
import type { JobQueue } from './jobs/job-queue';
import type { ImageStore } from './media/image-store';
import type { SocialSignIn } from './oauth/social-sign-in';
import type { JobsService } from './jobs/jobs-service';
import { errorHandler, frameworkErrors, notFoundBody } from './platform/error-handler';
import { useJsonBodyParser } from './platform/json-body';
import type { RateLimiter } from './platform/rate-limiter';
import { PUBLIC } from './platform/reply-schemas';
import { registerRoutes } from './routes';
import { registerWebAppFiles } from './platform/web-app-files';
import { RequestLogController } from './platform/request-log';
import { docsCsp, registerSecurityHeaders } from './platform/security-headers';
import { documentRoute } from './platform/openapi-transform';
import type { SampleCatalog } from './samples/sample-catalog';
import type { SchemaFiles } from './problems/schema-files';
import type { Registry } from '../src/engine';

export const DIST_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');

export interface AppServices {
  db: Database;
  queue: JobQueue;
  auth: AuthService;
  jobs: JobsService;
  runtime: WorkerRuntimeCheck;
  registry: Registry;
  /** The schema files the registry was built from, as GET /api/schemas sends them to the browser. */
  schemaFiles: SchemaFiles;
  /** Uploaded images (avatars) under DATA_DIR. */
  images: ImageStore;
  /** Google and GitHub sign-in (offers only the configured ones). */
  social: SocialSignIn;
  /** Counts for rate limits (sign-up, verification mail, uploads, social sign-in starts). */
  rateLimiter: RateLimiter;
  admin: AdminService;
  /** Registration, verification, approval status, the current user and the profile. */
  accounts: AccountsService;
  /** Applications: create, list, detail, save app_data, delete, outputs (owner or admin). */
  applications: ApplicationsService;
  /** The contact form's messages to the admins. */
  contact: ContactService;
  /** The shipped sample datasets (samples/, sha256-checked at start). */
  samples: SampleCatalog;
  /** Uploaded datasets (POST /upload, served by GET /download) and the dataset resolver. */
  datasets: DatasetServices;
  /** Trained models applied to a CSV (POST /{problem}/inference/{userId}/{applicationId}). */
  inference: InferenceService;
  /** Image predictions of the problems with a predict block (POST /{api}/predict/{userId}); absent: no route. */
  predict?: PredictService;
  /** Resource estimates of quantum job bodies (POST /{problem}/resource-estimate/{userId}). */
  estimates: ResourceEstimateService;
  /** IBM devices of the stored token (GET /quantum-devices). */
  quantumDevices?: QuantumDevicesService;
  /** Outputs: execute-job, stop-job, detail, record, timeline, count, delete, stream. */
  outputs: OutputsService;
  /** Sign-in throttle of the deployment (in memory, or on Redis); routes make their own when absent. */
  throttle?: LoginThrottle;
  /** TRUST_PROXY (whose X-Forwarded-For names the client address), PUBLIC_URL and the LLM_* settings. */
  config: Pick<Config, 'trustProxy' | 'publicUrl'> &
    Partial<Pick<Config, 'llmBaseUrl' | 'llmModel' | 'llmApiKey'>>;
  /** Analyze, compare and graph analysis; built from the outputs and LLM_* settings when absent. */
  analysis?: AnalysisService;
  /** The landing page's demo data: the example runs of the landing demo account (demo-runs.ts). */
  demoData: DemoResultsData;
  /** The landing demo's daily prices (the shipped files unless MARKET_DATA_PROVIDER or a test says otherwise). */
  market?: MarketData;
  /** The landing demo's predictions (WebSocket /stock-price-prediction/ws/predict); absent: no socket. */
  demoPredictions?: PredictionService;
  /** Page views and time on page (POST /track/..., WebSocket /ws) and the admin's analytics; absent: no routes. */
  tracking?: TrackingService;
}

/**
 * The HTTP application, loaded in layers: external plugins (form bodies, OpenAPI), then the
 * authentication plugin, then the API routes under /api, then the built single-page app.
 */
export async function buildApp(
  services: AppServices,
  options: {
    logger?: FastifyBaseLogger;
    serveWebApp?: boolean;
    /** The built web app's directory (tests point it at their own). */
    webAppDir?: string;
  } = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // One debug line per request instead of two info lines.
    logController: new RequestLogController(),
    // request.ip is the socket's address unless TRUST_PROXY names the proxy in front.
    trustProxy: fastifyTrustProxy(services.config.trustProxy),
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: true },
      // `errorMessage` in a route schema words a refusal for the client (e.g. control characters).
      // (ajv-errors types its options; Fastify's list takes option-less plugins.)
      plugins: [ajvErrors as Plugin<unknown>],
    },
    bodyLimit: 1024 * 1024,
    frameworkErrors,
  });
  app.setErrorHandler(errorHandler);
  await registerSecurityHeaders(app);
  useJsonBodyParser(app);
  await app.register(formbody);
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'QML Studio API',
        version: '0.1.0',
        description: 'Build and run quantum and classical ML applications',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: documentRoute,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true, transformStaticCSP: docsCsp });
  await app.register(authPlugin, { auth: services.auth });
  // WebSocket routes (the demo's predictions, page-time tracking): small JSON messages only.
  await app.register(websocket, { options: { maxPayload: 8 * 1024 } });

  await app.register(
    async (api) => {
      await registerRoutes(api, services);
      if (services.tracking) await api.register(trackingRoutes, { tracking: services.tracking });
      if (services.demoPredictions) {
        await api.register(predictionSocket, { predictions: services.demoPredictions });
      }
      api.get(
        '/openapi.json',
        {
          schema: {
            tags: ['docs'],
            summary: 'This OpenAPI document',
            security: PUBLIC,
            response: { 200: { type: 'object', additionalProperties: true } },
          },
        },
        async () => app.swagger(),
      );
    },
    { prefix: '/api' },
  );

  const webAppDir = options.webAppDir ?? DIST_DIR;
  const serveWebApp = options.serveWebApp ?? existsSync(path.join(webAppDir, 'index.html'));
  if (serveWebApp) await registerWebAppFiles(app, webAppDir);
  else app.setNotFoundHandler((_request, reply) => reply.code(404).send(notFoundBody()));
  return app;
}
