import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface FakePython {
  /** Path to give as WORKER_PYTHON. */
  python: string;
  /** Seconds the next `health` check takes before it answers ok. */
  setHealthDelay(seconds: number): void;
  /** A file each `run` writes its shell's pid and its sleeper's pid into, one per line. */
  pidsFile: string;
}

/**
 * A stand-in for the worker's Python (`<python> -m qmlstudio_worker health|run`), so tests control
 * timing without importing torch: `health` sleeps as long as told, then answers ok; `run` reports
 * progress and then sleeps for ten minutes in a child process (`sleep`), the way a training job keeps
 * working in native threads and children.
 */
export function writeFakePython(): FakePython {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'qml-fake-python-'));
  const python = path.join(dir, 'python');
  const delayFile = path.join(dir, 'health-delay');
  const pidsFile = path.join(dir, 'pids');
  writeFileSync(delayFile, '0');
  writeFileSync(
    python,
    `#!/bin/sh
# fake worker python: $1=-m $2=qmlstudio_worker $3=command
case "$3" in
  health)
    sleep "$(cat '${delayFile}')"
    echo '{"ok": true, "versions": {"fake-python": "1"}}'
    ;;
  run)
    cat > /dev/null
    echo '{"type": "progress", "percent": 1, "stage": "fake run"}'
    sleep 600 &
    echo "$$ $!" >> '${pidsFile}'
    wait
    ;;
  *) exit 2 ;;
esac
`,
  );
  chmodSync(python, 0o755);
  return { python, pidsFile, setHealthDelay: (seconds) => writeFileSync(delayFile, String(seconds)) };
}
