// @vitest-environment jsdom
// The dataset source section the Dataset tab and the brain tumor Train panel share: the file button,
// the sample buttons (draggable or not), the drop zone with the chosen dataset and Remove.

import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { cleanBrowserAfterEach } from '../../../../test-support/page-test';
import { SAMPLE_DRAG_TYPE, UploadSection, type UploadSectionProps } from './upload-section';

cleanBrowserAfterEach();

const samples = [
  { id: 'a', label: 'Sample A', file: 'a.csv' },
  { id: 'b', label: 'Sample B', file: 'b.csv' },
];

function draw(overrides: Partial<UploadSectionProps> = {}) {
  const props: UploadSectionProps = {
    rule: { extensions: ['csv'] },
    fileLabel: 'Upload a dataset file',
    fileText: 'CSV file',
    samples,
    checkedSample: undefined,
    chosen: null,
    emptyText: 'Drop here...',
    dropzoneTestId: 'zone',
    onFile: vi.fn(),
    onSample: vi.fn(),
    onRemove: vi.fn(),
    ...overrides,
  };
  render(
    <UploadSection {...props}>
      <p>below the zone</p>
    </UploadSection>,
  );
  return props;
}

/** A drop event's dataTransfer carrying `files` and, under SAMPLE_DRAG_TYPE, `sampleId`. */
const transfer = (files: File[], sampleId = '') => ({
  dataTransfer: { files, getData: (type: string) => (type === SAMPLE_DRAG_TYPE ? sampleId : '') },
});

describe('UploadSection', () => {
  it('offers the file input and one button per sample; a click or a chosen file reaches the caller', () => {
    const props = draw({ checkedSample: 'b' });
    expect(screen.getByRole('heading', { name: 'Upload Datasets' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Sample Datasets' })).toBeTruthy();
    const input = screen.getByLabelText('Upload a dataset file') as HTMLInputElement;
    expect(input.accept).toBe('.csv');
    expect(screen.getByRole('button', { name: 'Sample B' }).className).toContain('is-checked');
    expect(screen.getByRole('button', { name: 'Sample A' }).className).not.toContain('is-checked');
    fireEvent.click(screen.getByRole('button', { name: 'Sample A' }));
    expect(props.onSample).toHaveBeenCalledWith('a');
    const file = new File(['x,y\n1,2\n'], 'mine.csv');
    fireEvent.change(input, { target: { files: [file] } });
    expect(props.onFile).toHaveBeenCalledWith(file);
    expect(screen.getByText('Drop here...')).toBeTruthy();
    expect(screen.getByText('below the zone')).toBeTruthy();
  });

  it('shows the chosen dataset with Remove; without an upload rule there is no file input', () => {
    const props = draw({ rule: undefined, chosen: { chip: 'CSV', name: 'mine.csv' }, chipTestId: 'chip' });
    expect(screen.queryByLabelText('Upload a dataset file')).toBeNull();
    expect(screen.getByTestId('chip').textContent).toBe('CSV');
    expect(screen.getByText('mine.csv')).toBeTruthy();
    expect(screen.queryByText('Drop here...')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Remove' }));
    expect(props.onRemove).toHaveBeenCalledTimes(1);
  });

  it('draggable samples: a dragged sample dropped on the zone is chosen; an empty drop goes to onDropNothing', () => {
    const onDropNothing = vi.fn();
    const props = draw({ draggableSamples: true, onDropNothing });
    const button = screen.getByRole('button', { name: 'Sample A' });
    expect(button.getAttribute('draggable')).toBe('true');
    const data = new Map<string, string>();
    fireEvent.dragStart(button, { dataTransfer: { setData: (k: string, v: string) => data.set(k, v) } });
    expect(data.get(SAMPLE_DRAG_TYPE)).toBe('a');
    fireEvent.drop(screen.getByTestId('zone'), transfer([], 'a'));
    expect(props.onSample).toHaveBeenCalledWith('a');
    fireEvent.drop(screen.getByTestId('zone'), transfer([]));
    expect(onDropNothing).toHaveBeenCalledTimes(1);
    const file = new File(['m'], 'x.mat');
    fireEvent.drop(screen.getByTestId('zone'), transfer([file], 'a'));
    expect(props.onFile).toHaveBeenCalledWith(file);
    expect(props.onSample).toHaveBeenCalledTimes(1);
  });

  it('plain samples are not draggable and a drop without a file hands undefined to onFile', () => {
    const props = draw();
    expect(screen.getByRole('button', { name: 'Sample A' }).getAttribute('draggable')).toBeNull();
    fireEvent.drop(screen.getByTestId('zone'), transfer([], 'a'));
    expect(props.onSample).not.toHaveBeenCalled();
    expect(props.onFile).toHaveBeenCalledWith(undefined);
  });

  it('while disabled the file input and the sample buttons cannot be used', () => {
    draw({ disabled: true });
    expect((screen.getByLabelText('Upload a dataset file') as HTMLInputElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Sample A' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
