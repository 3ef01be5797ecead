// The brain tumor Outputs tab (issue #13): trainings and predictions, Analyze / Compare overlays, detail.
export { BioOutputsTab } from './bio-outputs-tab';
