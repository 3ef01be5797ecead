// The workspace's Dataset tab (issue #11): useDataset and DatasetTab per the workspace contract.
export { useDataset, type DatasetController } from './use-dataset';
export { DatasetTab } from './dataset-tab';
export { summarizeCsv } from './csv-summary';
