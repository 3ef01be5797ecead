// @vitest-environment jsdom
// Snapshots per problem, from each problem's example (app_data and dataset context): the rendered
// Dataset/preprocess form, the rendered Model Configurations form, and the pipeline (the engine's
// nodes and edges, and the nodes as React Flow draws them). The job bodies mapped from the same
// examples are snapshotted by the engine's own tests (src/engine/mapping.test.ts), not again here.

import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { createExampleAppData, derivePipelineGraph } from '../../engine';
import { PipelineFlow } from '../pipeline-flow';
import { Harness, allProblems, installFlowPolyfills, snapshotOf } from './support';

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

describe.each(problems.map((p) => [p.id, p] as const))('%s', (_id, problem) => {
  it('renders the Model Configurations form', () => {
    const { container } = render(<Harness problem={problem} tab="model" />);
    const form = container.querySelector('form[data-tab="model"]')!;
    expect(form).not.toBeNull();
    expect(screen.getByRole('button', { name: 'Save Changes' })).toBeTruthy();
    expect(snapshotOf(form)).toMatchSnapshot();
  });

  it('renders the Dataset / preprocess form', () => {
    const { container } = render(<Harness problem={problem} tab="dataset" />);
    const form = container.querySelector('form[data-tab="dataset"]')!;
    expect(form).not.toBeNull();
    expect(snapshotOf(form)).toMatchSnapshot();
  });

  it('derives and draws the pipeline', () => {
    const { appData, context } = createExampleAppData(problem);
    const graph = derivePipelineGraph(problem, appData, context);
    expect(graph).toMatchSnapshot('graph');
    const { container } = render(<PipelineFlow problem={problem} appData={appData} context={context} />);
    const drawn = [...container.querySelectorAll('.react-flow__node')];
    expect(drawn.map((n) => n.getAttribute('data-id'))).toEqual(graph.nodes.map((n) => n.id));
    expect(snapshotOf(container.querySelector('.react-flow__nodes')!)).toMatchSnapshot('flow nodes');
  });
});
