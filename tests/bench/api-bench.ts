/**
 * Benchmark: the API under 200 concurrent keep-alive connections, on the embedded database (PGlite)
 * and on PostgreSQL (a throwaway database on TEST_POSTGRES_URL, dropped afterwards), printed side by
 * side: anonymous GET /api/problems, and a signed-in user's list of applications (12) and of one
 * application's outputs (12). The load comes from another process, so the server's event loop is
 * not also the client's; the server process's CPU time per answered request is printed too, a figure
 * that holds when other work shares the machine. Targets for the signed-in lists: p99 < 150 ms on
 * PostgreSQL, < 400 ms on the embedded database.
 * Run: npm run bench:api [-- seconds-per-endpoint [pglite|postgres]] (both databases unless one is named)
 */
import { spawn } from 'node:child_process';
import {
  bearer,
  postgresAvailable,
  startStack,
  type DatabaseMode,
  type TestStack,
} from '../../server/test-support/harness';

const SECONDS = Number(process.argv[2] ?? 5);
const ONLY = process.argv[3] as DatabaseMode | undefined;
if (ONLY !== undefined && ONLY !== 'pglite' && ONLY !== 'postgres')
  throw new Error(`database must be pglite or postgres, not ${ONLY}`);
const CONNECTIONS = 200;
const SEEDED = 12;

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** The server process's CPU milliseconds per answered request (the load's share of a busy machine aside). */
  cpuMs: number;
}

/** The load generator: CONNECTIONS loops, each one request after another, for `seconds`. */
const LOAD = `
const http = require('node:http');
const { url, headers, seconds, connections } = JSON.parse(process.env.BENCH_LOAD);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const latencies = [];
let errors = 0;
const once = () => new Promise((resolve) => {
  const started = process.hrtime.bigint();
  http.get(url, { agent, headers }, (res) => {
    res.resume();
    res.on('end', () => {
      if (res.statusCode === 200) latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      else errors++;
      resolve();
    });
  }).on('error', () => { errors++; resolve(); });
});
(async () => {
  const deadline = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(Array.from({ length: connections }, async () => { while (Date.now() < deadline) await once(); }));
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  process.stdout.write(JSON.stringify({ rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors }));
})();
`;

/** Runs the load from another process and adds the server process's CPU time per answered request. */
function load(url: string, headers: Record<string, string>, seconds: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const cpuBefore = process.cpuUsage();
    const child = spawn(process.execPath, ['-e', LOAD], {
      env: {
        ...process.env,
        BENCH_LOAD: JSON.stringify({ url, headers, seconds, connections: CONNECTIONS }),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', () => {
      const cpu = process.cpuUsage(cpuBefore);
      const result = JSON.parse(output) as Omit<Result, 'cpuMs'>;
      resolve({ ...result, cpuMs: (cpu.user + cpu.system) / 1000 / Math.max(1, result.rps * seconds) });
    });
  });
}

interface Endpoint {
  name: string;
  url: string;
  headers: Record<string, string>;
}

/** A signed-in user with SEEDED applications, the newest with SEEDED finished outputs. */
async function seed(stack: TestStack, base: string): Promise<Endpoint[]> {
  const token = await stack.userToken('bench@example.com');
  const { rows } = await stack.services.db.query<{ id: string }>(`select id from users where email = $1`, [
    'bench@example.com',
  ]);
  const userId = Number(rows[0]!.id);
  let appId = 0;
  for (let i = 0; i < SEEDED; i++) {
    const created = await stack.services.db.query<{ id: string }>(
      `insert into applications (user_id, app_name, app_problem_id, app_data)
       values ($1, $2, 'fraud-detection', '{}'::jsonb) returning id`,
      [userId, `Bench application ${i + 1}`],
    );
    appId = Number(created.rows[0]!.id);
  }
  for (let i = 0; i < SEEDED; i++) {
    await stack.services.db.query(
      `insert into jobs (kind, owner_id, status, params, result, application_id, name, finished_at, execution_time)
       values ('fraud-detection', $1, 'Completed', '{}'::jsonb, '{"metrics": {"accuracy": 0.9}}'::jsonb, $2, $3, now(), 1.5)`,
      [userId, appId, `Bench application ${SEEDED} #${i + 1}`],
    );
  }
  const endpoints: Endpoint[] = [
    { name: 'GET /api/problems (anonymous)', url: `${base}/api/problems`, headers: {} },
    {
      name: `GET /api/applications/:userId/all`,
      url: `${base}/api/applications/${userId}/all`,
      headers: bearer(token),
    },
    {
      name: `GET /api/application-outputs/:appId/all`,
      url: `${base}/api/application-outputs/${appId}/all`,
      headers: bearer(token),
    },
  ];
  for (const endpoint of endpoints) {
    const reply = await fetch(endpoint.url, { headers: endpoint.headers });
    const body = (await reply.json()) as { data: unknown };
    if (reply.status !== 200) throw new Error(`${endpoint.name} answered ${reply.status}`);
    if (endpoint.headers.authorization && (body.data as unknown[]).length !== SEEDED)
      throw new Error(`${endpoint.name} listed ${(body.data as unknown[]).length}, not ${SEEDED}`);
  }
  return endpoints;
}

async function measureDatabase(database: DatabaseMode): Promise<Map<string, Result>> {
  const stack = await startStack({ database, queue: 'in-process' });
  const base = (await stack.app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
  const results = new Map<string, Result>();
  try {
    const endpoints = await seed(stack, base);
    for (const endpoint of endpoints) await load(endpoint.url, endpoint.headers, 1); // warm-up
    for (const endpoint of endpoints)
      results.set(endpoint.name, await load(endpoint.url, endpoint.headers, SECONDS));
  } finally {
    await stack.close();
  }
  return results;
}

const embedded = ONLY === 'postgres' ? null : await measureDatabase('pglite');
const postgres = ONLY !== 'pglite' && postgresAvailable ? await measureDatabase('postgres') : null;

const cell = (r: Result | undefined) =>
  r
    ? `${r.rps.toFixed(0).padStart(6)} req/s p50 ${r.p50.toFixed(0).padStart(4)} ms p99 ${r.p99.toFixed(0).padStart(5)} ms cpu ${r.cpuMs.toFixed(2)} ms${r.errors ? ` (${r.errors} errors)` : ''}`
    : 'not run';
console.log(`${CONNECTIONS} connections, ${SECONDS} s per endpoint, ${SEEDED} rows per list`);
console.log(`${'endpoint'.padEnd(42)} ${'embedded (PGlite)'.padEnd(58)} PostgreSQL`);
for (const name of (embedded ?? postgres)?.keys() ?? [])
  console.log(`${name.padEnd(42)} ${cell(embedded?.get(name)).padEnd(58)} ${cell(postgres?.get(name))}`);
process.exit(0);
