import { useState } from 'react';
import type { AppData, EngineContext, Problem } from '../../../../engine';
import { Tabs } from '../../../components/tabs';
import type { WorkspaceUser } from '../workspace-types';
import type { Prediction } from '../predict/predict-api';
import { readPixelsWithCanvas, type LooksLikeMri, type ReadPixels } from '../predict/image-validation';
import { mriLookOf } from '../predict/mri-look';
import { PredictPanel } from '../predict/predict-panel';
import { TrainPanel } from './mat-slices/train-panel';
import { datasetUrlOf } from './mat-slices/use-mat-dataset';
import './image-dataset.css';

type SubTab = 'predict' | 'train';
/** Spec section 2's sub-tabs, named after the problem (Predict Brain Tumor, Train Brain Tumor). */
const subTabs = (problem: Problem) =>
  [
    { id: 'predict', title: `Predict ${problem.name}` },
    { id: 'train', title: `Train ${problem.name}` },
  ] as const;

export interface ImageDatasetTabProps {
  problem: Problem;
  appData: AppData;
  context: EngineContext;
  user: WorkspaceUser | null;
  applicationId: number;
  onChange(next: AppData): void;
  /** Next Step of Train: the workspace keeps the values and opens Model Configurations. */
  onSaved(next: AppData): void;
  /** A prediction was made (a new output): the workspace counts it. */
  onPredicted(prediction: Prediction): void;
  /** Tests replace the browser's image decoder and the MRI rule. */
  readPixels?: ReadPixels;
  looksLikeMri?: LooksLikeMri;
}

/**
 * The Dataset tab of a problem that predicts from images and trains on .mat data (spec section 2, 'Dataset
 * tab (brain tumor)'): sub-tabs Predict and Train. A new application (no dataset yet) opens on Train.
 */
export function ImageDatasetTab(props: ImageDatasetTabProps) {
  const { problem, appData, user, applicationId } = props;
  const [sub, setSub] = useState<SubTab>(() => (datasetUrlOf(problem, appData) ? 'predict' : 'train'));
  return (
    <div className="workspace-card bio-dataset">
      <Tabs
        label={`${problem.name} dataset`}
        idPrefix="image-dataset"
        tabs={subTabs(problem)}
        selected={sub}
        onSelect={setSub}
      >
        {sub === 'predict' ? (
          <PredictPanel
            problem={problem}
            user={user}
            applicationId={applicationId}
            onPredicted={props.onPredicted}
            readPixels={props.readPixels ?? readPixelsWithCanvas}
            looksLikeMri={props.looksLikeMri ?? mriLookOf(problem)}
          />
        ) : (
          <TrainPanel
            problem={problem}
            appData={appData}
            context={props.context}
            user={user}
            onChange={props.onChange}
            onSaved={props.onSaved}
          />
        )}
      </Tabs>
    </div>
  );
}

/** Whether a problem's Dataset tab is this one: it predicts from images or trains on .mat data (schema-driven). */
export function usesImageDataset(problem: Problem): boolean {
  return problem.predict !== undefined || problem.dataset.kinds.includes('mat');
}
