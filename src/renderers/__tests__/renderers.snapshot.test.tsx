// @vitest-environment jsdom
// Snapshots per problem and per tab, each in its own file so that a change is reviewable:
// __snapshots__/<problem>/dataset.html (Dataset / preprocess form), model.html (Model
// Configurations form), pipeline.html (the nodes as React Flow draws them) and pipeline-graph.json
// (the engine's nodes and edges), all from each problem's example (app_data and dataset context).
// The job bodies mapped from the same examples are snapshotted by the engine's own tests
// (src/engine/mapping.test.ts), not again here. `npx vitest run --project unit -u <this file>`
// rewrites them; in CI a missing file fails.

import { cleanup, prettyDOM, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { createExampleAppData, derivePipelineGraph } from '../../engine';
import { PipelineFlow } from '../pipeline-flow';
import { Harness, allProblems, installFlowPolyfills, snapshotOf } from './support';

/** The element as indented HTML, whole (no length limit, no colours). */
const html = (element: Element) => `${prettyDOM(snapshotOf(element), Infinity, { highlight: false })}\n`;
const snapshotFile = (problem: string, name: string) => `./__snapshots__/${problem}/${name}`;

beforeAll(installFlowPolyfills);
afterEach(cleanup);

const problems = allProblems();

it('covers the six problems, the unlisted one included', () => {
  expect(problems.map((p) => p.id).sort()).toEqual([
    'brain-tumor',
    'demand-forecasting',
    'fraud-detection',
    'portfolio-optimization',
    'stock-price-prediction',
    'vehicle-routing',
  ]);
});

describe.each(problems.map((p) => [p.id, p] as const))('%s', (id, problem) => {
  it('renders the Model Configurations form', async () => {
    const { container } = render(<Harness problem={problem} tab="model" />);
    const form = container.querySelector('form[data-tab="model"]');
    expect(form?.querySelectorAll('[data-field]').length).toBeGreaterThan(0);
    expect(screen.getByRole('button', { name: 'Save Changes' })).toBeTruthy();
    await expect(html(form!)).toMatchFileSnapshot(snapshotFile(id, 'model.html'));
  });

  it('renders the Dataset / preprocess form', async () => {
    const { container } = render(<Harness problem={problem} tab="dataset" />);
    const form = container.querySelector('form[data-tab="dataset"]');
    expect(form?.querySelectorAll('[data-field]').length).toBeGreaterThan(0);
    await expect(html(form!)).toMatchFileSnapshot(snapshotFile(id, 'dataset.html'));
  });

  it('derives and draws the pipeline', async () => {
    const { appData, context } = createExampleAppData(problem);
    const graph = derivePipelineGraph(problem, appData, context);
    await expect(`${JSON.stringify(graph, null, 2)}\n`).toMatchFileSnapshot(
      snapshotFile(id, 'pipeline-graph.json'),
    );
    const { container } = render(<PipelineFlow problem={problem} appData={appData} context={context} />);
    const drawn = [...container.querySelectorAll('.react-flow__node')];
    expect(drawn.map((n) => n.getAttribute('data-id'))).toEqual(graph.nodes.map((n) => n.id));
    await expect(html(container.querySelector('.react-flow__nodes')!)).toMatchFileSnapshot(
      snapshotFile(id, 'pipeline.html'),
    );
  });
});
