// Whether a worker that died of SIGKILL nobody here sent ran out of memory. SIGKILL alone says nothing:
// `kill -9` from a shell, a container runtime or a supervisor sends it too. Memory is named only on
// evidence: the kernel's log names the process in an out-of-memory kill, or the out-of-memory kill
// count of the server's control group (cgroup v2 memory.events, v1 memory.oom_control: a memory
// limit reached) grew while the job ran.

import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface MemoryEvidenceSources {
  /** The kernel's log as text (default: `dmesg`, which needs root where dmesg_restrict is set). */
  kernelLog?: () => Promise<string>;
  /** The text of /proc/self/cgroup. */
  ownCgroups?: () => Promise<string>;
  /** Where the cgroup hierarchies are mounted (default /sys/fs/cgroup). */
  cgroupRoot?: string;
}

const runDmesg = () =>
  new Promise<string>((resolve, reject) =>
    execFile('dmesg', [], { timeout: 2000, maxBuffer: 8 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );

/** The kernel log line that records an out-of-memory kill of `pid`, if any. */
export function oomKillLine(log: string, pid: number): string | null {
  const names = new RegExp(`(?:Killed process ${pid}\\b|\\bpid=${pid}\\b)`);
  const lines = log.split('\n').filter((line) => /out of memory|oom-kill|oom_reaper/i.test(line));
  return lines.find((line) => names.test(line))?.trim() ?? null;
}

/** The `oom_kill` count of a cgroup v2 memory.events or v1 memory.oom_control file. */
export function oomKillCount(text: string): number | null {
  const match = /^oom_kill (\d+)$/m.exec(text);
  return match ? Number(match[1]) : null;
}

export class MemoryEvidence {
  constructor(private readonly sources: MemoryEvidenceSources = {}) {}

  /** How many processes the server's control group has had killed for memory; null when unknown. */
  async oomKills(): Promise<number | null> {
    try {
      const cgroups = await (this.sources.ownCgroups ?? (() => readFile('/proc/self/cgroup', 'utf8')))();
      const root = this.sources.cgroupRoot ?? '/sys/fs/cgroup';
      const v1 = /^\d+:memory:(\/.*)$/m.exec(cgroups)?.[1];
      const v2 = /^0::(\/.*)$/m.exec(cgroups)?.[1];
      const file = v1
        ? path.join(root, 'memory', v1, 'memory.oom_control')
        : v2 !== undefined
          ? path.join(root, v2, 'memory.events')
          : null;
      return file ? oomKillCount(await readFile(file, 'utf8')) : null;
    } catch {
      return null;
    }
  }

  /**
   * Why the process `pid`, killed by SIGKILL nobody here sent, ran out of memory; null without
   * evidence. `killsBefore` is oomKills() when the job started.
   */
  async explain(pid: number | undefined, killsBefore: number | null): Promise<string | null> {
    if (pid !== undefined) {
      const log = await (this.sources.kernelLog ?? runDmesg)().catch(() => '');
      const line = oomKillLine(log, pid);
      if (line) return `the kernel's out-of-memory killer ended it: ${line}`;
    }
    const killsAfter = await this.oomKills();
    if (killsBefore !== null && killsAfter !== null && killsAfter > killsBefore) {
      return "the server's memory limit (its control group) was reached and the kernel ended it";
    }
    return null;
  }
}
