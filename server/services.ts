import type { FastifyBaseLogger } from 'fastify';
import { loadSchemaSources } from '../src/engine/node/load-schemas';
import { createRegistry, type Registry } from '../src/engine';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { AccountsService } from './accounts/accounts-service';
import { parseTokenKey, TokenCipher } from './accounts/token-cipher';
import { AdminService } from './admin/admin-service';
import { AdminUsersRepository } from './admin/admin-users-repository';
import { ApplicationsRepository } from './applications/applications-repository';
import { ApplicationsService } from './applications/applications-service';
import { AccessTokens } from './auth/access-tokens';
import { AuthService } from './auth/auth-service';
import { LoginThrottle } from './auth/login-throttle';
import { SessionsRepository } from './auth/sessions-repository';
import { UsersRepository } from './auth/users-repository';
import { samplesDirBeside, type Config } from './config';
import { ContactRepository } from './contact/contact-repository';
import { ContactService } from './contact/contact-service';
import type { Database } from './db/database';
import { RedisChangeChannel } from './db/redis-change-channel';
import { createDatasetServices, type DatasetServices } from './datasets/datasets';
import { WorkerRuntimeCheck } from './health/worker-runtime';
import { InferenceService } from './inference/inference-service';
import { OutputsService } from './outputs/outputs-service';
import { LocalJobEventBus, RedisJobEventBus, type JobEventBus } from './jobs/job-event-bus';
import { BullMqJobQueue, InProcessJobQueue, type JobQueue } from './jobs/job-queue';
import { JobRunner } from './jobs/job-runner';
import { startQueueReconciler } from './jobs/queue-reconcile';
import { ColdWorkerLauncher, type WorkerLauncher } from './jobs/worker-launcher';
import { WarmWorkerPool } from './jobs/warm-worker-pool';
import { workerSchemasEnvironment } from './jobs/worker-process';
import { JobsRepository } from './jobs/jobs-repository';
import { JobsService } from './jobs/jobs-service';
import { ImageStore } from './media/image-store';
import { configuredProviders } from './oauth/oauth-providers';
import { SocialSignIn } from './oauth/social-sign-in';
import { createMailer, type Mailer } from './mail/mailer';
import { SampleCatalog } from './samples/sample-catalog';
import { SchemaFiles } from './problems/schema-files';
import { createMarketData, ShippedMarketData, type MarketData } from './market-data/market-data';
import { DEMO_OWNER_EMAIL, DemoModels } from './stock-demo/demo-models';
import { AnalysisEngine } from './analysis/analysis-engine';
import { DemoResultsData } from './demo-data/demo-results-data';
import { DemoRuns } from './demo-data/demo-runs';
import { PredictionService } from './stock-demo/prediction-service';
import { TrackingRepository } from './tracking/tracking-repository';
import { TrackingService } from './tracking/tracking-service';
import { QuantumDevicesService } from './quantum-devices/devices-service';
import { ResourceEstimateService } from './quantum-estimate/estimate-service';
import { createPredictService, type PredictService } from './predict/predict-service';
import { createRateStore, RateLimiter } from './platform/rate-limiter';
import type { FileStore } from './storage/file-store';
import { createFileStore, workerStorageEnvironment } from './storage/storage-config';

export interface Services {
  config: Config;
  db: Database;
  queue: JobQueue;
  bus: JobEventBus;
  runner: JobRunner;
  /** Starts worker processes for jobs and inference (cold, or the warm pool). */
  launcher: WorkerLauncher;
  /** Files servers and workers share (datasets, fetched URLs, models): DATA_DIR, or S3 (STORAGE_BACKEND). */
  files: FileStore;
  auth: AuthService;
  jobs: JobsService;
  /** The stores' repositories, each built once (tests and operations read them directly). */
  repositories: { jobs: JobsRepository; users: UsersRepository; sessions: SessionsRepository };
  runtime: WorkerRuntimeCheck;
  /** The problem types from SCHEMAS_DIR, checked against their meta-schemas at start. */
  registry: Registry;
  /** The same files as the browser reads them (GET /api/schemas). */
  schemaFiles: SchemaFiles;
  mailer: Mailer;
  /** Uploaded images (avatars): files under DATA_DIR/images, rows in `images`. */
  images: ImageStore;
  /** Social sign-in with the providers whose client ids are set. */
  social: SocialSignIn;
  /** The admin console's account decisions (approve, reject, disable, roles) and the outbox. */
  admin: AdminService;
  /** Registration, verification, approval status, the current user and the profile. */
  accounts: AccountsService;
  /** Applications (owner or admin): create, list, detail, save app_data, delete, outputs. */
  applications: ApplicationsService;
  /** The contact form: kept in contact_messages and mailed to every admin. */
  contact: ContactService;
  /** The shipped sample datasets (samples/ at the repository root, sha256-checked at start). */
  samples: SampleCatalog;
  /** The landing demo's daily prices: the shipped files, or the online provider MARKET_DATA_PROVIDER names. */
  market: MarketData;
  /** The landing demo's predictions from its stored stock models (trained once through the job queue). */
  demoPredictions: PredictionService;
  /** The landing page's example runs (queued at start unless DEMO_RESULTS=off) and their demo data. */
  demoRuns: DemoRuns;
  demoData: DemoResultsData;
  /** Page views and time on page, their retention and the admin's analytics. */
  tracking: TrackingService;
  /** Uploaded datasets (quota), the URL fetcher and the resolver jobs use (server/datasets). */
  datasets: DatasetServices;
  /** Trained models applied to a CSV (the worker's infer command, outside the job queue). */
  inference: InferenceService;
  /** Image predictions of the problems with a predict block (the worker's predict command, outside the job queue). */
  predict: PredictService;
  /** Resource estimates of quantum job bodies (the worker's estimate command, outside the job queue). */
  estimates: ResourceEstimateService;
  /** IBM devices of the stored token (the worker's devices command, outside the job queue). */
  quantumDevices: QuantumDevicesService;
  /** Outputs: execute-job, stop-job, an output's detail, record, timeline, count, deletion. */
  outputs: OutputsService;
  /** Account rate limits (registration, verification mail): on Redis when REDIS_URL is set. */
  rateLimiter: RateLimiter;
  /** Sign-in throttle: on Redis when REDIS_URL is set (shared, kept over restarts), else in memory. */
  throttle: LoginThrottle;
  close(): Promise<void>;
}

/**
 * Wires the parts for one process: the embedded default (in-process queue and events) or the
 * scale-out (BullMQ and Redis pub/sub) when REDIS_URL is set.
 */
export function createServices(
  config: Config,
  db: Database,
  log: FastifyBaseLogger,
  options: {
    runWorkers?: boolean;
    /** A warm pool another owner keeps and closes (tests: one preloaded Python for many stacks). */
    sharedWarmPool?: WarmWorkerPool;
  } = {},
): Services {
  const prefix = config.redisPrefix;
  const bus: JobEventBus = config.redisUrl
    ? new RedisJobEventBus(config.redisUrl, prefix)
    : new LocalJobEventBus();
  // The processes sharing the database tell each other what they wrote (remembered reads stay true).
  const changes = config.redisUrl ? new RedisChangeChannel(config.redisUrl, prefix, db.versions) : null;
  if (changes) db.versions.connect(changes);
  const queue: JobQueue = config.redisUrl
    ? new BullMqJobQueue(
        config.redisUrl,
        config.workerConcurrency,
        `${prefix}-jobs`,
        config.workerLockSeconds,
      )
    : new InProcessJobQueue(config.workerConcurrency);
  // One repository per store, handed to every service that reads or writes it.
  // TOKEN_ENCRYPTION_KEY, or the key prepareDataDir generated; a stack without either (tests) gets
  // a key of its own for this process. One cipher for the profile's saved token and a job's custom one.
  const tokenCipher = new TokenCipher(parseTokenKey(config.tokenEncryptionKey) ?? randomBytes(32));
  const jobsRepository = new JobsRepository(db, tokenCipher);
  const files = createFileStore(config);
  // The Python workers read and publish the same files: they get the store's settings (never logged).
  const workerEnv = { ...workerStorageEnvironment(config), ...workerSchemasEnvironment(config.schemasDir) };
  // Warm: a preloaded Python forks each job (started now when this process runs jobs and
  // WORKER_WARM=true, else at the first launch); WORKER_WARM=false: a fresh Python per job.
  // A warm pool handed in by the caller (many stacks in one test process) runs this stack's launches with
  // its environment, when this stack would start the same Python warm.
  const shared = options.sharedWarmPool;
  const launcher: WorkerLauncher =
    shared && config.workerWarm !== 'false' && config.workerPython === shared.python
      ? shared.withEnvironment(workerEnv)
      : config.workerWarm === 'false'
        ? new ColdWorkerLauncher(config.workerPython, workerEnv)
        : new WarmWorkerPool({
            python: config.workerPython,
            env: workerEnv,
            log,
            startNow: config.workerWarm === 'true' && (options.runWorkers ?? true),
            attachTo: config.workerServeSocket ?? undefined,
          });
  // Whether the worker's Python starts: checked after the server listens (main.ts); jobs wait for it.
  // A passing check kept in WORKER_CHECK_RECORD stands for a restart within the check interval.
  const runtime = new WorkerRuntimeCheck(config.workerPython, { record: config.workerCheckRecord });
  const runner = new JobRunner(
    jobsRepository,
    bus,
    {
      launcher,
      timeoutSeconds: config.workerTimeoutSeconds,
      outputsDir: path.join(config.dataDir, 'outputs'),
      // A device run's stored token, looked up as its worker starts (accounts is built below).
      providerToken: async (ownerId) => {
        const stored = await accounts.providerToken({ id: ownerId }, ownerId);
        return stored.ok ? stored.token : null;
      },
      runtimeGate: () => runtime.jobRefusal(),
      tokenCipher,
    },
    log,
  );
  const jobs = new JobsService(db, jobsRepository, queue, runner, bus);
  if (options.runWorkers ?? true) queue.startWorkers((jobId) => runner.run(jobId));
  // BullMQ: an output whose queue job is gone (deleted, Redis flushed) ends Failed instead of waiting forever.
  const reconciler =
    queue instanceof BullMqJobQueue
      ? startQueueReconciler({ queue, jobs: jobsRepository, runner, log })
      : null;
  const mailer = createMailer(config, db);
  // One store of rate counts (memory, or Redis when REDIS_URL is set) for sign-in and account limits.
  const rateStore = createRateStore(config);
  const throttle = new LoginThrottle(rateStore);
  const users = new UsersRepository(db);
  const sessions = new SessionsRepository(db);
  const auth = new AuthService(db, new AccessTokens(config.jwtSecret, config.accessTokenTtlSeconds), {
    users,
    sessions,
  });
  const schemaSources = loadSchemaSources(config.schemasDir);
  const schemaFiles = new SchemaFiles(schemaSources, () => registry);
  const registry = createRegistry(schemaSources);
  // The sample datasets the problem files name live beside them (the worker looks there too).
  const samplesDir = samplesDirBeside(config.schemasDir);
  const samples = SampleCatalog.loadSync(samplesDir);
  const shippedMarket = ShippedMarketData.loadSync(samplesDir);
  const market = createMarketData(config, shippedMarket);
  const rateLimiter = new RateLimiter(rateStore);
  const accounts = new AccountsService(users, auth, mailer, registry, tokenCipher, rateLimiter, {
    publicUrl: config.publicUrl,
    log,
  });
  const admin = new AdminService(db, new AdminUsersRepository(db), mailer, auth, {
    publicUrl: config.publicUrl,
    sendVerification: accounts.sendVerification,
    log,
  });
  const datasets = createDatasetServices(config, db, samples, { launcher, log }, files);
  const applications = new ApplicationsService(new ApplicationsRepository(db), registry, samples, {
    dataDir: config.dataDir,
    datasets: datasets.resolver,
    // Bound late: the outputs service is built below and needs the applications repository first.
    removeOutputs: (applicationId) => outputs.removeAllOfApplication(applicationId),
  });
  const contact = new ContactService(new ContactRepository(db), registry, mailer, rateLimiter, log);
  const inference = new InferenceService(
    {
      db,
      applications: new ApplicationsRepository(db),
      registry,
      datasets: datasets.resolver,
      launcher,
      log,
    },
    { outputsDir: path.join(config.dataDir, 'outputs') },
  );
  const estimates = new ResourceEstimateService({ registry, launcher, log });
  const predict = createPredictService(
    config,
    { db, registry, launcher, runner, jobs: jobsRepository },
    log,
    files,
  );
  const quantumDevices = new QuantumDevicesService({ accounts, launcher, log });
  const outputs = new OutputsService({
    registry,
    applications: new ApplicationsRepository(db),
    jobs,
    jobsRepository,
    datasets: datasets.resolver,
    dataDir: config.dataDir,
    files,
  });
  const demoPredictions = new PredictionService({
    models: new DemoModels({
      db,
      registry,
      jobs,
      jobsRepository,
      users,
      market: shippedMarket,
      outputsDir: path.join(config.dataDir, 'outputs'),
    }),
    market: shippedMarket,
    launcher,
    log,
  });
  const demoRuns = new DemoRuns({
    db,
    users,
    applications: new ApplicationsRepository(db),
    outputs,
    ownerEmail: DEMO_OWNER_EMAIL,
    log,
  });
  let analysisEngine: AnalysisEngine | null = null;
  const demoData = new DemoResultsData({
    db,
    registry,
    outputs,
    owner: () => demoRuns.owner(),
    enabled: config.demoResults === 'on',
    interpret: (subject, register) =>
      (analysisEngine ??= new AnalysisEngine()).analyze(subject, register).markdown,
  });
  const tracking = new TrackingService(new TrackingRepository(db), rateLimiter, {
    retentionDays: config.trackingRetentionDays,
    log,
  });
  tracking.startPurging();
  return {
    config,
    db,
    queue,
    bus,
    runner,
    launcher,
    files,
    auth,
    jobs,
    repositories: { jobs: jobsRepository, users, sessions },
    runtime,
    registry,
    schemaFiles,
    mailer,
    images: new ImageStore(db, config.dataDir, files),
    social: new SocialSignIn(db, auth, configuredProviders(config), config.publicUrl, log),
    admin,
    accounts,
    applications,
    contact,
    samples,
    market,
    demoPredictions,
    demoRuns,
    demoData,
    tracking,
    datasets,
    inference,
    predict,
    estimates,
    quantumDevices,
    outputs,
    rateLimiter,
    throttle,
    async close() {
      reconciler?.stop();
      await runtime.stop(); // a check under way is a child process
      mailer.close();
      await rateStore.close(); // the throttle's and the account limits' store
      await queue.close();
      await inference.close(); // its worker processes, before the launcher goes
      await demoPredictions.close();
      demoRuns.stop();
      tracking.close();
      estimates.close();
      datasets.matInspector.close();
      quantumDevices.close();
      await launcher.close(); // after the queue: the jobs under way have ended
      await bus.close();
      files.close();
      await db.close();
      changes?.close();
    },
  };
}
