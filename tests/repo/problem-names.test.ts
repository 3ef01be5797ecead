// A problem is data: generic code (the engine, the renderers, the web app and the server) names no
// problem. A problem's id, its name or its API segment (read from schemas/problems/), or a model only one
// problem offers, in the code of those trees fails here, with the file and the words found. Comments
// are skipped (they may give a problem as an example); strings and identifiers count. The allow-list is
// short and says why each entry may name a problem.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TREES = ['src/engine', 'src/renderers', 'src/app', 'server'] as const;
const SKIP = new Set(['node_modules', 'generated', 'test-support', '__snapshots__']);

/** Models of the brain tumor form that no other problem offers (schemas/problems/brain-tumor.json). */
const PROBLEM_MODELS = ['densenet121', 'FCN', '3D_CNNs', 'QCNN', 'QSVM', 'QGANs', 'QVAE', 'QBMs'];

/** Files that may name a problem, and why. */
const ALLOWED: Record<string, string> = {
  'src/app/pages/landing-page.tsx': 'marketing copy: the hero sentence lists the problems offered',
  'src/app/features/services/service-catalog.ts':
    'marketing copy: the services pages describe the problems (spec platform-shell section 2)',
  'src/app/features/applications/dashboard-rules.ts':
    "spec platform-shell section 2: the dashboard's second tab holds the applications whose problem name is 'brain tumor'",
  'src/app/features/applications/applications-browser.tsx':
    "spec platform-shell section 2: the dashboard's tab is labelled 'Brain Tumor application'",
  'src/app/features/applications/create-application-dialog.tsx':
    "spec platform-shell section 2: the dialog groups 'Brain Tumor Applications' and 'Financial Applications'",
  'server/analysis/analysis-service.ts':
    "spec workspace section 5: 'Analysis is only available for Brain Tumor applications' applies to brain tumor names",
  'server/analysis/analysis-routes.ts':
    'spec workspace section 5: an empty prompt means the brain tumor classification analysis (OpenAPI text)',
  'server/market-data/market-data-routes.ts':
    "spec platform-shell section 7: the landing demo's history call is /stock-price-prediction/stream-dataset",
  'server/stock-demo/demo-models.ts':
    "spec platform-shell landing section: the live demo runs the stock price prediction problem's own models",
  'server/stock-demo/prediction-socket.ts':
    "spec platform-shell section 7: the demo's socket is /stock-price-prediction/ws/predict",
  'src/app/features/landing/stock-demo/history.ts':
    "spec platform-shell section 7: the landing demo's history call is /stock-price-prediction/stream-dataset",
  'src/app/features/demo-data/plot-tabs.ts':
    'spec platform-shell landing section: plot tabs default to the first for portfolio and fraud',
  'src/app/features/landing/stock-demo/prediction-socket.ts':
    "spec platform-shell section 7: the demo's socket is /stock-price-prediction/ws/predict",
};

interface ProblemFile {
  id: string;
  name: string;
  job?: { request?: { path?: string } };
}

function problemWords(): string[] {
  const dir = path.join(ROOT, 'schemas/problems');
  const words = new Set<string>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const problem = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as ProblemFile;
    words.add(problem.id);
    words.add(problem.name);
    const segment = problem.job?.request?.path?.split('/').find(Boolean);
    if (segment) words.add(segment);
  }
  return [...words];
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** brain-tumor, Brain Tumor, brain_tumor, BRAIN_TUMOR and brainTumor alike; whole model names only. */
const PATTERN = new RegExp(
  [
    ...problemWords().map((word) =>
      word
        .toLowerCase()
        .split(/[-_ ]+/)
        .map(escape)
        .join('[-_ ]?'),
    ),
    ...PROBLEM_MODELS.map((model) => `\\b${escape(model)}\\b`),
  ].join('|'),
  'gi',
);

/** The source's tokens without its comments (the parser's leaves: comments are trivia, not tokens). */
function codeOf(source: string, jsx: boolean): string {
  const file = ts.createSourceFile(jsx ? 'probe.tsx' : 'probe.ts', source, ts.ScriptTarget.Latest, true);
  const tokens: string[] = [];
  const visit = (node: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(file);
    if (children.length === 0) tokens.push(node.getText(file));
    else children.forEach(visit);
  };
  visit(file);
  return tokens.join(' ');
}

export const problemNamesIn = (source: string, jsx = false): string[] =>
  codeOf(source, jsx).match(PATTERN) ?? [];

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (SKIP.has(name)) continue;
    if (statSync(path.join(ROOT, rel)).isDirectory()) sources(rel, out);
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$|test-data\.ts$/.test(name)) out.push(rel);
  }
  return out;
}

/** 'file: word, word' for each file of `tree` that names a problem and is not allowed to. */
function hits(tree: string): string[] {
  return sources(tree)
    .filter((file) => !(file in ALLOWED))
    .map(
      (file) =>
        [file, problemNamesIn(readFileSync(path.join(ROOT, file), 'utf8'), file.endsWith('x'))] as const,
    )
    .filter(([, found]) => found.length > 0)
    .map(([file, found]) => `${file}: ${[...new Set(found)].join(', ')}`);
}

describe('generic code names no problem', () => {
  it('finds a problem named in code, in any spelling, and not in a comment', () => {
    expect(problemNamesIn("if (problem.id === 'fraud-detection') run();")).toEqual(['fraud-detection']);
    expect(problemNamesIn('const isBrainTumor = true;')).toEqual(['BrainTumor']);
    expect(problemNamesIn("const title = 'Stock Price Prediction';")).toEqual(['Stock Price Prediction']);
    expect(problemNamesIn("const model = 'densenet121';")).toEqual(['densenet121']);
    expect(problemNamesIn("fetch('/api/brain-tumor-classification/predict')")).toEqual(['brain-tumor']);
    expect(problemNamesIn('// as the vehicle routing sample shows\nconst x = 1;')).toEqual([]);
    expect(problemNamesIn('/** Brain tumor: a .mat file. */\nexport const x = 1;')).toEqual([]);
    expect(problemNamesIn('const modelType = problem.model;')).toEqual([]);
  });

  it('every allow-listed file exists (a moved file leaves no stale entry)', () => {
    for (const file of Object.keys(ALLOWED)) expect(statSync(path.join(ROOT, file)).isFile()).toBe(true);
  });

  it.each(TREES)('%s names no problem outside the allow-list', (tree) => {
    expect(hits(tree)).toEqual([]);
  });
});
