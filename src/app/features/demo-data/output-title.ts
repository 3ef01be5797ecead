import type { DemoOutput } from './api/get-demo-compare';

/** 'Quantum model (output 336)': how the demo sections name a compared output. */
export const outputTitle = (output: DemoOutput) =>
  `${output.model_type ? `${output.model_type} model` : 'Model'} (output ${output.id})`;
