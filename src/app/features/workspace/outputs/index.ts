// The workspace's Outputs tab (contract of issue #11): the shell composes it through OutputsTabProps.
import { createElement } from 'react';
import { TrainingsAndPredictionsList } from './list/trainings-and-predictions-list';
import type { OutputsTabProps } from '../workspace-types';
import { OutputsTab as RunOutputsTab } from './list/outputs-list';

/** Chosen by the problem's schema: a problem with a `predict` block (brain tumor) lists trainings and predictions. */
export function OutputsTab(props: OutputsTabProps) {
  return createElement(props.problem.predict ? TrainingsAndPredictionsList : RunOutputsTab, props);
}
