// The workspace's Outputs tab (contract of issue #11): the shell composes it through OutputsTabProps.
export { OutputsTab } from './outputs-tab';
