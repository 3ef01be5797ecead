// The API's route plugins, one entry per feature with the options it takes from the services: the one
// place a route plugin is registered (buildApp registers the list under /api). A feature's routes
// reach other features only through the services handed to them here.

import type { FastifyInstance } from 'fastify';
import type { AppServices } from './app';
import { accountsRoutes } from './accounts/accounts-routes';
import { adminRoutes } from './admin/admin-routes';
import { analysisRoutes } from './analysis/analysis-routes';
import { AnalysisService } from './analysis/analysis-service';
import { OpenAiCompatibleChat } from './analysis/chat-model';
import { applicationsRoutes } from './applications/applications-routes';
import { catalogRoutes } from './applications/catalog-routes';
import { authRoutes } from './auth/auth-routes';
import { contactRoutes } from './contact/contact-routes';
import { datasetFetchRoutes } from './datasets/fetch-routes';
import { uploadRoutes } from './datasets/upload-routes';
import { demoDataRoutes } from './demo-data/demo-data-routes';
import { healthRoutes } from './health/health-routes';
import { inferenceRoutes } from './inference/inference-routes';
import { jobsRoutes } from './jobs/jobs-routes';
import { ShippedMarketData } from './market-data/market-data';
import { marketDataRoutes } from './market-data/market-data-routes';
import { mediaRoutes } from './media/media-routes';
import { oauthRoutes } from './oauth/oauth-routes';
import { outputsRoutes } from './outputs/outputs-routes';
import { runExportRoutes, RunExportService } from './outputs/run-export-routes';
import { whatIfRoutes } from './outputs/what-if-routes';
import { WhatIfService } from './outputs/what-if-service';
import { predictRoutes } from './predict/predict-routes';
import { problemsRoutes } from './problems/problems-routes';
import { quantumDevicesRoutes } from './quantum-devices/devices-routes';
import { resourceEstimateRoutes } from './quantum-estimate/estimate-routes';
import { samplesRoutes } from './samples/samples-routes';

/** A feature's routes: registers its plugin on the /api scope with what it needs of the services. */
export interface RouteModule {
  feature: string;
  register(api: FastifyInstance, services: AppServices): PromiseLike<unknown> | void;
}

/** The analysis service of the outputs, with the language model LLM_BASE_URL names (none without it). */
function analysisServiceOf(services: AppServices): AnalysisService {
  const config = services.config;
  const model =
    config.llmBaseUrl && config.llmModel
      ? new OpenAiCompatibleChat(config.llmBaseUrl, config.llmModel, config.llmApiKey ?? null)
      : null;
  return new AnalysisService({ outputs: services.outputs, registry: services.registry, model });
}

/** Every feature's routes, in the order they are registered (the OpenAPI document lists them so). */
export const ROUTE_MODULES: readonly RouteModule[] = [
  {
    feature: 'health',
    register: (api, s) => api.register(healthRoutes, { db: s.db, queue: s.queue, runtime: s.runtime }),
  },
  { feature: 'auth', register: (api, s) => api.register(authRoutes, { auth: s.auth, throttle: s.throttle }) },
  {
    feature: 'accounts',
    register: (api, s) =>
      api.register(accountsRoutes, { accounts: s.accounts, publicUrl: s.config.publicUrl }),
  },
  { feature: 'jobs', register: (api, s) => api.register(jobsRoutes, { jobs: s.jobs }) },
  {
    feature: 'problems',
    register: (api, s) => api.register(problemsRoutes, { registry: s.registry, schemaFiles: s.schemaFiles }),
  },
  {
    feature: 'media',
    register: (api, s) => api.register(mediaRoutes, { images: s.images, limiter: s.rateLimiter }),
  },
  {
    feature: 'oauth',
    register: (api, s) => api.register(oauthRoutes, { social: s.social, limiter: s.rateLimiter }),
  },
  { feature: 'admin', register: (api, s) => api.register(adminRoutes, { admin: s.admin }) },
  {
    feature: 'samples',
    register: (api, s) => api.register(samplesRoutes, { samples: s.samples, datasets: s.datasets.store }),
  },
  {
    feature: 'datasets',
    register: async (api, s) => {
      await api.register(uploadRoutes, {
        store: s.datasets.store,
        limiter: s.rateLimiter,
        mat: { inspector: s.datasets.matInspector, resolver: s.datasets.resolver },
      });
      await api.register(datasetFetchRoutes, { fetcher: s.datasets.browserFetcher, limiter: s.rateLimiter });
    },
  },
  { feature: 'inference', register: (api, s) => api.register(inferenceRoutes, { inference: s.inference }) },
  {
    feature: 'predict',
    register: (api, s) =>
      s.predict ? api.register(predictRoutes, { predict: s.predict, limiter: s.rateLimiter }) : undefined,
  },
  {
    feature: 'quantum-estimate',
    register: (api, s) => api.register(resourceEstimateRoutes, { estimates: s.estimates }),
  },
  {
    feature: 'quantum-devices',
    register: (api, s) =>
      s.quantumDevices ? api.register(quantumDevicesRoutes, { devices: s.quantumDevices }) : undefined,
  },
  {
    feature: 'outputs',
    register: async (api, s) => {
      await api.register(outputsRoutes, { outputs: s.outputs, jobs: s.jobs, registry: s.registry });
      await api.register(whatIfRoutes, { whatIf: new WhatIfService(s) });
      await api.register(runExportRoutes, { exports: new RunExportService(s.db) });
    },
  },
  {
    feature: 'analysis',
    register: (api, s) => api.register(analysisRoutes, { analysis: s.analysis ?? analysisServiceOf(s) }),
  },
  {
    feature: 'applications',
    register: async (api, s) => {
      await api.register(catalogRoutes, { registry: s.registry });
      await api.register(applicationsRoutes, { applications: s.applications });
    },
  },
  { feature: 'contact', register: (api, s) => api.register(contactRoutes, { contact: s.contact }) },
  {
    feature: 'demo-data',
    register: (api, s) => api.register(demoDataRoutes, { store: s.demoData }),
  },
  {
    feature: 'market-data',
    register: (api, s) =>
      api.register(marketDataRoutes, { market: s.market ?? ShippedMarketData.loadSync() }),
  },
];

/** Registers every feature's routes on the /api scope, in order. */
export async function registerRoutes(api: FastifyInstance, services: AppServices): Promise<void> {
  for (const module of ROUTE_MODULES) await module.register(api, services);
}
