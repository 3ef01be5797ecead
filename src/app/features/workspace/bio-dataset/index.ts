// The brain tumor Dataset tab (issue #13): sub-tabs Predict Brain Tumor and Train Brain Tumor.
export { BioDatasetTab, usesBioDataset, type BioDatasetTabProps } from './bio-dataset-tab';
