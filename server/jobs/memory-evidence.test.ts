// Memory is named for a killed worker only on evidence: the kernel's out-of-memory record of that
// process, or the control group's out-of-memory kill count growing while the job ran.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryEvidence, oomKillCount, oomKillLine } from './memory-evidence';

const KERNEL_LOG = [
  '[ 1.29] random: crng reseeded due to virtual machine fork',
  '[ 812.1] python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0',
  '[ 812.2] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),task=python,pid=4242,uid=0',
  '[ 812.3] Memory cgroup out of memory: Killed process 4242 (python) total-vm:9000000kB, anon-rss:8000000kB',
].join('\n');

describe('memory evidence', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'qml-oom-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("finds the kernel's out-of-memory record of one process, and no other's", () => {
    expect(oomKillLine(KERNEL_LOG, 4242)).toContain('pid=4242');
    expect(oomKillLine(KERNEL_LOG, 424)).toBeNull();
    expect(oomKillLine(KERNEL_LOG, 1)).toBeNull();
  });

  it('reads the oom_kill count of cgroup v1 and v2 files', () => {
    expect(oomKillCount('oom_kill_disable 0\nunder_oom 0\noom_kill 3\n')).toBe(3);
    expect(oomKillCount('low 0\nhigh 0\nmax 2\noom 2\noom_kill 1\noom_group_kill 0\n')).toBe(1);
    expect(oomKillCount('low 0\n')).toBeNull();
  });

  it('says memory for a killed process only with a record or a grown count', async () => {
    const group = path.join(scratch, 'memory', 'jobs');
    mkdirSync(group, { recursive: true });
    const count = (n: number) => writeFileSync(path.join(group, 'memory.oom_control'), `oom_kill ${n}\n`);
    count(0);
    const evidence = (log: string) =>
      new MemoryEvidence({
        kernelLog: async () => log,
        ownCgroups: async () => '4:memory:/jobs\n0::/\n',
        cgroupRoot: scratch,
      });
    // A kill -9 from a shell: no record, no count.
    const before = await evidence('').oomKills();
    expect(before).toBe(0);
    expect(await evidence('').explain(4242, before)).toBeNull();
    // The kernel names the process.
    expect(await evidence(KERNEL_LOG).explain(4242, before)).toMatch(/^the kernel's out-of-memory killer/);
    // The group's limit was reached while the job ran (the kernel log unreadable: dmesg_restrict).
    count(1);
    expect(await evidence('').explain(4242, before)).toMatch(/memory limit/);
    // Unknown counts are no evidence.
    expect(
      await new MemoryEvidence({ kernelLog: async () => '', ownCgroups: async () => '' }).explain(7, null),
    ).toBeNull();
  });
});
