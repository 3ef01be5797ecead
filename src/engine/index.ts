// QML Studio schema engine: pure, isomorphic TypeScript (no DOM, no file system). See README.md.

export * from './types';
export {
  getPointer,
  hasPointer,
  setPointer,
  removePointer,
  parsePointer,
  formatPointer,
  joinPointer,
  escapePointerSegment,
  unescapePointerSegment,
} from './pointer';
export { isPlainObject } from './json';
export { sentValueErrors } from './sent-value-check';
export { columnSelectionErrors } from './column-selection';
export { normalizeAppData } from './spec-shapes';
export { matchingSpecQuery } from './spec-query';
export { inlineRefs, mergeSchemaOverride, DEFS_REF_PREFIX } from './refs';
export { resolveBodySchema } from './body-schema';
export { resolveMessages, MESSAGE_REF } from './messages';
export { expandMappingFragments } from './mapping-fragments';
export {
  createRegistry,
  loadSchemas,
  normalizeSources,
  registryFromLoaded,
  summarizeProblem,
  SchemaError,
  UnknownProblemError,
  SCHEMA_FILES,
  type Registry,
  type SchemaSources,
  type LoadedSchemas,
  type ProblemSummary,
  type CategoryWithProblems,
  type ExampleSummary,
} from './registry';
export { buildAppDataSchema, buildValidationSchema, pascalCase } from './app-data-schema';
export {
  resolveFields,
  declaredFieldNames,
  testCondition,
  pruneValue,
  lookupField,
  firstDeclaration,
  hasFields,
  type ResolvedField,
} from './conditions';
export {
  validateAppData,
  validateJobBody,
  pruneAppData,
  precompileProblem,
  errorsUnder,
  errorsByPath,
} from './validate';
export {
  createDefaultAppData,
  createExampleAppData,
  fillDefaults,
  fieldDefault,
  setFieldValue,
  setFieldValues,
} from './defaults';
export {
  getTabSections,
  formsOfTab,
  tabOfForm,
  visibleColumns,
  fieldOptions,
  widgetOf,
  DEFAULT_WIDGETS,
  type SectionView,
  type FieldView,
  type FieldOption,
  type UiSchema,
} from './forms';
export { getTabStatuses, getPipelineStatus, type TabStatus, type PipelineStatus } from './tabs';
export {
  derivePipelineGraph,
  type PipelineGraph,
  type PipelineNode,
  type PipelineEdge,
  type PipelineNodeKind,
} from './pipeline-graph';
export { getFormState, type FormState } from './form-state';
export {
  mapJobBody,
  mapJobRequest,
  applyMapping,
  TRANSFORMS,
  TRANSFORM_NAMES,
  JOB_EXTENSION_KEYS,
  mapJobExtension,
  type JobExtensionKey,
  type JobRequest,
} from './mapping';
export { checkSchemaSources, crossCheckProblem, formatIssues } from './check';
export {
  installPrecompiledValidators,
  precompiledValidators,
  type PrecompiledValidators,
} from './precompiled';
export { checkExamplesAgainstSamples } from './sample-check';
export { parseSampleManifest, type SampleManifest, type SampleManifestEntry } from './sample-manifest';
export { checkFile, acceptAttribute, type FileCheck } from './files';
export { AVATAR_RULE, avatarProblem } from './avatar-rule';
export {
  validateAccountForm,
  NOT_COMMON_PASSWORD_KEYWORD,
  type AccountFormChecks,
  accountFormsFrom,
  loadAccountForms,
  compileAccountForms,
  createAccountFormAjv,
  toAccountFormErrors,
  isAccountFormId,
  isIanaTimeZone,
  isAtLeastYearsOld,
  isNotFutureDate,
  ACCOUNT_FORM_IDS,
  MIN_AGE_KEYWORD,
  NOT_FUTURE_KEYWORD,
  TIME_ZONE_FORMAT,
  type AccountFormId,
  type AccountFormDef,
  type AccountForms,
  type AccountFormError,
} from './account-forms';
