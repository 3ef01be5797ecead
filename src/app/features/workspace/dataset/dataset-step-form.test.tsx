// @vitest-environment jsdom
// One dataset wizard step for every dataset kind: the step's fields of the problem file, Next Step only where
// the step leads on, and no fields where an upload step stands in for them.

import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { createDefaultAppData } from '../../../../engine';
import { browserRegistry } from '../../../../renderers/browser-registry';
import { cleanBrowserAfterEach } from '../../../test-support/page-test';
import { DatasetStepForm, type DatasetStepFormProps } from './dataset-step-form';

cleanBrowserAfterEach();
const problem = browserRegistry().getProblem('fraud-detection');
const appData = createDefaultAppData(problem);

/** The Preprocess Data step of fraud detection's dataset tab, with `more` props. */
const draw = (more: Partial<DatasetStepFormProps>) =>
  render(
    <DatasetStepForm problem={problem} appData={appData} onChange={() => {}} wizardStep={1} {...more} />,
  );

describe('DatasetStepForm', () => {
  it('draws the step and leads on with Next Step', () => {
    const next = vi.fn();
    const { container } = draw({ onNext: next });
    expect(container.querySelectorAll('form').length).toBeGreaterThan(0);
    fireEvent.click(screen.getByRole('button', { name: 'Next Step' }));
    expect(next).toHaveBeenCalledTimes(1);
  });

  it('has no Next Step without somewhere to go, and no fields when told', () => {
    const { container } = draw({ showForm: false });
    expect(screen.queryByRole('button', { name: 'Next Step' })).toBeNull();
    expect(container.querySelectorAll('form')).toHaveLength(0);
  });
});
