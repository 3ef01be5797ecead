/**
 * The environment every worker Python process starts with: the server's own, the caller's additions,
 * unbuffered output (progress lines reach the server as they are written), and bytecode caching left on.
 * Some machines set PYTHONDONTWRITEBYTECODE (this one does); without the cache every process compiles
 * numpy, scikit-learn, torch and qiskit from source again: their imports took 14 s here against 5.6 s
 * with the venv's __pycache__ written once.
 */
export function pythonEnv(...additions: (NodeJS.ProcessEnv | undefined)[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const extra of additions) Object.assign(env, extra);
  env.PYTHONUNBUFFERED = '1';
  delete env.PYTHONDONTWRITEBYTECODE;
  return env;
}
