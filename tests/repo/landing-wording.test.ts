import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const readJson = <T>(file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as T;

interface SampleFacts {
  file: string;
  synthetic: boolean;
}
interface ProblemTexts {
  id: string;
  description: string;
  useCases: string[];
  dataset: { samples?: { file: string }[] };
  example?: { description?: string };
}

const manifest = readJson<{ samples: SampleFacts[]; mat_samples?: SampleFacts[] }>('samples/manifest.json');
const synthetic = new Map(
  [...manifest.samples, ...(manifest.mat_samples ?? [])].map((s) => [s.file, s.synthetic]),
);
const problems = readdirSync(path.join(ROOT, 'schemas/problems'))
  .filter((name) => name.endsWith('.json'))
  .map((name) => readJson<ProblemTexts>(`schemas/problems/${name}`));

/** "real" as a claim about the data; "no real ..." says the opposite, RealAmplitudes is a circuit. */
const CLAIMS_REAL = /(?<!\bno )\breal\b/i;

describe('landing texts say real only where the data is real', () => {
  const onlySynthetic = problems.filter((problem) => {
    const files = (problem.dataset.samples ?? []).map((s) => s.file);
    return files.length > 0 && files.every((file) => synthetic.get(file) === true);
  });

  it('the problems whose samples are all synthetic are known to the manifest', () => {
    expect(onlySynthetic.map((p) => p.id).sort()).toEqual([
      'brain-tumor',
      'fraud-detection',
      'vehicle-routing',
    ]);
  });

  it.each(onlySynthetic.map((p) => [p.id, p] as const))(
    '%s: no card text or example description calls its synthetic data real',
    (_id, problem) => {
      const texts = [problem.description, ...problem.useCases, problem.example?.description ?? ''];
      expect(texts.filter((text) => CLAIMS_REAL.test(text))).toEqual([]);
    },
  );
});
