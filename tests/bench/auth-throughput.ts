/**
 * Benchmark: GET /api/problems anonymous versus authenticated (bearer token) on the embedded
 * default (PGlite, in-process queue), each at 50 concurrent keep-alive connections for N seconds.
 * Prints requests per second for both and their ratio; the target is authenticated >= half of
 * anonymous. Run: npm run bench:auth [-- seconds]
 */
import http from 'node:http';
import { bearer, startStack } from '../../server/test-support/harness';

const seconds = Number(process.argv[2] ?? 5);
const CONNECTIONS = 50;

/** Runs CONNECTIONS request loops against url for `seconds`; returns completed 200s per second. */
async function measure(url: URL, headers: Record<string, string>): Promise<{ rps: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const deadline = Date.now() + seconds * 1000;
  let ok = 0;
  let errors = 0;
  const once = () =>
    new Promise<void>((resolve) => {
      http
        .get(url, { agent, headers }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) ok++;
            else errors++;
            resolve();
          });
        })
        .on('error', () => {
          errors++;
          resolve();
        });
    });
  const loop = async () => {
    while (Date.now() < deadline) await once();
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();
  return { rps: ok / elapsed, errors };
}

const stack = await startStack({ database: 'pglite', queue: 'in-process' });
const address = await stack.app.listen({ port: 0, host: '127.0.0.1' });
const url = new URL('/api/problems', address);
const check = await fetch(url, { headers: bearer(stack.adminToken) });
if (check.status !== 200) throw new Error(`authenticated GET /api/problems answered ${check.status}`);

await measure(url, {}); // warm-up: JIT and the route's serializer
const anonymous = await measure(url, {});
const authenticated = await measure(url, bearer(stack.adminToken));
const ratio = authenticated.rps / anonymous.rps;
console.log(
  `GET /api/problems, ${CONNECTIONS} connections, ${seconds} s each:\n` +
    `  anonymous     ${anonymous.rps.toFixed(0)} req/s (${anonymous.errors} errors)\n` +
    `  authenticated ${authenticated.rps.toFixed(0)} req/s (${authenticated.errors} errors)\n` +
    `  ratio         ${ratio.toFixed(2)} (target >= 0.50)`,
);
await stack.close();
process.exit(0);
