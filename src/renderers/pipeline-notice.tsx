import type { PipelineStatus } from '../engine';

export interface PipelineValidityNoticeProps {
  status: PipelineStatus;
  /** Jump to the first incomplete tab (tabIndex 0 Dataset, 1 Model Configurations). */
  onFillMissing?: (target: NonNullable<PipelineStatus['fillMissing']>) => void;
}

/**
 * The pipelineInvalid message of platform.json with the fillMissingAt button (step 1 dataset,
 * 2 model configuration), when the pipeline is not valid; the engine fills in both texts.
 */
export function PipelineValidityNotice({ status, onFillMissing }: PipelineValidityNoticeProps) {
  if (status.valid || !status.message) return null;
  const target = status.fillMissing;
  return (
    <div className="qs-pipeline-notice" role="alert">
      <p>{status.message}</p>
      {target && (
        <button type="button" className="qs-button qs-button--danger" onClick={() => onFillMissing?.(target)}>
          {target.label}
        </button>
      )}
    </div>
  );
}
