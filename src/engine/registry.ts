// The registry: loads every schema file (already parsed, no file system here), checks each
// against its meta-schema, inlines the shared definitions and hands out resolved problems.
// Node reads the files with src/engine/node/load-schemas.ts; the browser passes
// import.meta.glob('/schemas/**/*.json', { eager: true, import: 'default' }).

import type { ValidateFunction } from 'ajv/dist/2020';

import {
  loadAccountForms,
  validateAccountForm,
  type AccountFormChecks,
  type AccountFormError,
  type AccountFormId,
  type AccountForms,
} from './account-forms';
import { createPlainAjv } from './ajv';
import { precompiledValidators } from './precompiled';
import { deepClone, isPlainObject } from './json';
import { formatPointer } from './pointer';
import { resolveBodySchema } from './body-schema';
import { expandMappingFragments } from './mapping-fragments';
import { resolveMessages } from './messages';
import { inlineRefs } from './refs';
import {
  FORM_KEYS,
  type Category,
  type FormDef,
  type FormKey,
  type OutputDefinition,
  type PlatformConfig,
  type Problem,
  type ProblemFile,
  type SchemaIssue,
} from './types';

/** Parsed schema files keyed by their path relative to the schemas directory. */
export type SchemaSources = Record<string, unknown>;

export const SCHEMA_FILES = {
  problemMeta: 'meta/problem.schema.json',
  defsMeta: 'meta/defs.schema.json',
  platformMeta: 'meta/platform.schema.json',
  categoriesMeta: 'meta/categories.schema.json',
  outputsMeta: 'meta/outputs.schema.json',
  accountsMeta: 'meta/accounts.schema.json',
  defs: 'defs.json',
  platform: 'platform.json',
  categories: 'categories.json',
  outputs: 'outputs.json',
  accounts: 'accounts.json',
  problemsDir: 'problems/',
} as const;

/**
 * Accepts the keys and values of import.meta.glob (with or without `import: 'default'`) or of
 * any loader and returns sources keyed relative to the schemas directory ("problems/x.json").
 */
export function normalizeSources(modules: Record<string, unknown>): SchemaSources {
  const out: SchemaSources = {};
  for (const [key, value] of Object.entries(modules)) {
    let rel = key.replace(/\\/g, '/');
    const at = rel.lastIndexOf('schemas/');
    if (at !== -1) rel = rel.slice(at + 'schemas/'.length);
    rel = rel.replace(/^\.?\//, '');
    const unwrapped = isPlainObject(value) && isPlainObject(value.default) ? value.default : value;
    out[rel] = unwrapped;
  }
  return out;
}

export class SchemaError extends Error {
  readonly issues: SchemaIssue[];
  constructor(issues: SchemaIssue[]) {
    super(
      `Invalid schema files:\n${issues.map((i) => `  ${i.file}${i.pointer ? ' ' + i.pointer : ''}: ${i.reason}`).join('\n')}`,
    );
    this.name = 'SchemaError';
    this.issues = issues;
  }
}

export class UnknownProblemError extends Error {
  constructor(id: string) {
    super(`Unknown problem: ${id}`);
    this.name = 'UnknownProblemError';
  }
}

export interface LoadedSchemas {
  problems: Problem[];
  platform: PlatformConfig;
  categories: Category[];
  outputs: Record<string, OutputDefinition>;
  defs: Record<string, unknown>;
  /** The account forms' rules (accounts.json), messages resolved; validate with validateAccountForm. */
  accountForms: AccountForms;
  issues: SchemaIssue[];
}

function describeAjvError(e: { keyword: string; message?: string; params: Record<string, unknown> }): {
  extra: string[];
  reason: string;
} {
  if (e.keyword === 'additionalProperties') {
    const name = String(e.params.additionalProperty);
    return { extra: [name], reason: `unknown key "${name}" (not allowed here)` };
  }
  if (e.keyword === 'required') {
    const name = String(e.params.missingProperty);
    return { extra: [], reason: `missing required key "${name}"` };
  }
  if (e.keyword === 'enum') {
    const allowed = (e.params.allowedValues as unknown[] | undefined)
      ?.map((v) => JSON.stringify(v))
      .join(', ');
    return { extra: [], reason: `${e.message ?? 'invalid'}${allowed ? `: ${allowed}` : ''}` };
  }
  return { extra: [], reason: e.message ?? 'invalid' };
}

function metaIssues(file: string, validate: ValidateFunction, data: unknown): SchemaIssue[] {
  if (validate(data)) return [];
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  // oneOf/anyOf summaries repeat what their branches say; keep them only when nothing else is said.
  const errors = validate.errors ?? [];
  const specific = errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf' && e.keyword !== 'if');
  for (const e of specific.length > 0 ? specific : errors) {
    const { extra, reason } = describeAjvError(e);
    const pointer = e.instancePath + (extra.length ? formatPointer(extra) : '');
    const key = pointer + ' ' + reason;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ file, pointer, reason });
  }
  return issues;
}

function requireFile(sources: SchemaSources, file: string, issues: SchemaIssue[]): unknown {
  if (!(file in sources)) {
    issues.push({ file, pointer: '', reason: 'file is missing' });
    return undefined;
  }
  return sources[file];
}

/** Loads and resolves everything; never throws on bad files, reports them in `issues`. */
export function loadSchemas(
  sources: SchemaSources,
  // With precompiled validators (the browser) the files are the ones codegen compiled them from,
  // which loadRegistry had checked then: no meta-schema or form is compiled or checked again.
  compileChecks = !precompiledValidators(),
): LoadedSchemas {
  const issues: SchemaIssue[] = [];
  const ajv = compileChecks ? createPlainAjv() : undefined;
  const metaFiles = [
    SCHEMA_FILES.problemMeta,
    SCHEMA_FILES.defsMeta,
    SCHEMA_FILES.platformMeta,
    SCHEMA_FILES.categoriesMeta,
    SCHEMA_FILES.outputsMeta,
    SCHEMA_FILES.accountsMeta,
  ];
  for (const file of metaFiles) {
    const schema = requireFile(sources, file, issues);
    if (ajv && isPlainObject(schema)) {
      try {
        ajv.addSchema(schema as object);
      } catch (err) {
        issues.push({ file, pointer: '', reason: `meta-schema does not compile: ${(err as Error).message}` });
      }
    }
  }
  const metaId = (file: string): string | undefined => {
    const schema = sources[file];
    return isPlainObject(schema) && typeof schema.$id === 'string' ? schema.$id : undefined;
  };
  const validator = (file: string): ValidateFunction | undefined => {
    const id = metaId(file);
    if (!id || !ajv) return undefined;
    try {
      return ajv.getSchema(id) ?? undefined;
    } catch (err) {
      issues.push({ file, pointer: '', reason: `meta-schema does not compile: ${(err as Error).message}` });
      return undefined;
    }
  };

  const readAndMetaCheck = (file: string, meta: string): unknown => {
    const data = requireFile(sources, file, issues);
    const validate = validator(meta);
    if (data !== undefined && validate) issues.push(...metaIssues(file, validate, data));
    return data;
  };

  const defsFile = readAndMetaCheck(SCHEMA_FILES.defs, SCHEMA_FILES.defsMeta) as {
    $defs?: Record<string, unknown>;
  };
  const platformFile = readAndMetaCheck(SCHEMA_FILES.platform, SCHEMA_FILES.platformMeta) as
    PlatformConfig | undefined;
  const categoriesFile = readAndMetaCheck(SCHEMA_FILES.categories, SCHEMA_FILES.categoriesMeta) as
    { categories?: Category[] } | undefined;
  const outputsFile = readAndMetaCheck(SCHEMA_FILES.outputs, SCHEMA_FILES.outputsMeta) as
    { outputs?: Record<string, OutputDefinition> } | undefined;

  const platform: PlatformConfig = isPlainObject(platformFile)
    ? (platformFile as PlatformConfig)
    : {
        hiddenColumns: [],
        tabs: [],
        messages: {
          fieldRequired: '',
          pipelineInvalid: '',
          fillMissingAt: '',
          pipelineBlocked: '',
          pipelineReadOnly: '',
          wrongConfigurations: '',
          notAColumn: '',
        },
      };
  // {"$message": key} references resolve against platform.json's message table, once, here.
  const defs = resolveMessages(
    isPlainObject(defsFile) && isPlainObject(defsFile.$defs) ? defsFile.$defs : {},
    platform.messages,
    (pointer, reason) => issues.push({ file: SCHEMA_FILES.defs, pointer: '/$defs' + pointer, reason }),
  ) as Record<string, unknown>;
  const categories = (categoriesFile?.categories ?? [])
    .slice()
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  const outputs = outputsFile?.outputs ?? {};
  const accountsFile = readAndMetaCheck(SCHEMA_FILES.accounts, SCHEMA_FILES.accountsMeta);
  const accountForms = loadAccountForms(
    accountsFile,
    platform.messages,
    (pointer, reason) => issues.push({ file: SCHEMA_FILES.accounts, pointer, reason }),
    compileChecks,
  );

  // Shared definitions may reference each other; report unknown references once, here.
  inlineRefs(defs, defs, (pointer, reason) =>
    issues.push({ file: SCHEMA_FILES.defs, pointer: '/$defs' + pointer, reason }),
  );

  const problemValidator = validator(SCHEMA_FILES.problemMeta);
  const problems: Problem[] = [];
  const problemFiles = Object.keys(sources)
    .filter((f) => f.startsWith(SCHEMA_FILES.problemsDir) && f.endsWith('.json'))
    .sort();
  if (problemFiles.length === 0) {
    issues.push({ file: SCHEMA_FILES.problemsDir, pointer: '', reason: 'no problem files found' });
  }
  const seenIds = new Map<string, string>();
  for (const file of problemFiles) {
    const data = sources[file];
    const fileIssues = problemValidator ? metaIssues(file, problemValidator, data) : [];
    issues.push(...fileIssues);
    if (fileIssues.length > 0 || !isPlainObject(data)) continue;
    const raw = resolveMessages(data, platform.messages, (pointer, reason) =>
      issues.push({ file, pointer, reason }),
    ) as ProblemFile;
    const other = seenIds.get(raw.id);
    if (other) {
      issues.push({ file, pointer: '/id', reason: `duplicate problem id "${raw.id}" (also in ${other})` });
      continue;
    }
    seenIds.set(raw.id, file);
    const forms: Partial<ProblemFile['forms']> = {};
    for (const key of FORM_KEYS) {
      if (!raw.forms[key]) continue;
      // A whole form may be shared ({"$ref": "defs.json#/$defs/csvDatasetForm"}); its field refs inline too.
      const form = inlineRefs(raw.forms[key], defs, (pointer, reason) =>
        issues.push({ file, pointer: `/forms/${key}${pointer}`, reason }),
      ) as FormDef;
      if (!isPlainObject(form.schema) || !Array.isArray(form.sections)) {
        const ref = (raw.forms[key] as { $ref?: string }).$ref;
        issues.push({
          file,
          pointer: `/forms/${key}`,
          reason: `"${ref}" is not a form (schema and sections)`,
        });
        continue;
      }
      forms[key] = { schema: form.schema, sections: form.sections };
    }
    const categoryInfo = categories.find((c) => c.id === raw.category) ?? {
      id: raw.category,
      name: raw.category,
      label: raw.category,
    };
    const outputDefinitions = raw.outputs
      .map((name) => outputs[name])
      .filter((o): o is OutputDefinition => o !== undefined);
    const bodySchema = resolveBodySchema(raw.job.bodySchema, defs, (pointer, reason) =>
      issues.push({ file, pointer: `/job/bodySchema${pointer}`, reason }),
    );
    const expand = (items: readonly unknown[] | undefined, at: string) =>
      expandMappingFragments(items ?? [], defs, at, (pointer, reason) =>
        issues.push({ file, pointer, reason }),
      );
    const body = expand(raw.job.body, '/job/body');
    const params = expand(raw.job.request.params, '/job/request/params');
    const query = expand(raw.job.request.query, '/job/request/query');
    const extension = expand(raw.job.extension, '/job/extension');
    const request: ProblemFile['job']['request'] = { ...deepClone(raw.job.request) };
    if (raw.job.request.params) request.params = params.entries;
    if (raw.job.request.query) request.query = query.entries;
    problems.push({
      ...deepClone(raw),
      job: {
        request,
        body: body.entries,
        bodySchema,
        ...(raw.job.extension && { extension: extension.entries }),
      },
      mappingOrigins: {
        body: body.origins,
        params: params.origins,
        query: query.origins,
        extension: extension.origins,
      },
      forms: forms as ProblemFile['forms'],
      source: file,
      categoryInfo,
      outputDefinitions,
      platform,
      formKeys: FORM_KEYS.filter((k): k is FormKey => !!forms[k]),
    });
  }
  problems.sort((a, b) => (a.order ?? 0) - (b.order ?? 0) || a.id.localeCompare(b.id));
  return { problems, platform, categories, outputs, defs, accountForms, issues };
}

export interface ProblemSummary {
  id: string;
  name: string;
  category: string;
  categoryName: string;
  listed: boolean;
  workspace: Problem['workspace'];
  description: string;
  useCases: string[];
}

export interface CategoryWithProblems extends Category {
  problems: ProblemSummary[];
}

export interface Registry {
  readonly platform: PlatformConfig;
  readonly categories: Category[];
  readonly outputs: Record<string, OutputDefinition>;
  /** Every problem, listed or not. */
  readonly problems: Problem[];
  /** Listed problems (or all with includeUnlisted), optionally of one category, in `order`. */
  listProblems(options?: { includeUnlisted?: boolean; category?: string }): ProblemSummary[];
  /** Categories with their listed problems; categories without any are left out unless asked. */
  listCategories(options?: { includeUnlisted?: boolean; includeEmpty?: boolean }): CategoryWithProblems[];
  getProblem(id: string): Problem;
  findProblem(id: string): Problem | undefined;
  /** Example gallery entries by category (listed problems whose example is in the gallery). */
  listExamples(options?: { includeUnlisted?: boolean }): ExampleSummary[];
  /** The account forms' rules (schemas/accounts.json). */
  readonly accountForms: AccountForms;
  /** [] when valid, else one {field: JSON pointer, message} per field with the spec's message. */
  validateAccountForm(formId: AccountFormId, values: unknown, checks?: AccountFormChecks): AccountFormError[];
}

export interface ExampleSummary {
  problemId: string;
  problemName: string;
  category: string;
  categoryLabel: string;
  appName: string;
  workspace: Problem['workspace'];
  description: string;
  useCases: string[];
}

export function summarizeProblem(problem: Problem): ProblemSummary {
  return {
    id: problem.id,
    name: problem.name,
    category: problem.category,
    categoryName: problem.categoryInfo.name,
    listed: problem.listed,
    workspace: problem.workspace,
    description: problem.description,
    useCases: [...problem.useCases],
  };
}

/**
 * Creates the registry. Throws SchemaError listing file, JSON pointer and reason when any file
 * breaks its meta-schema or refers to an unknown shared definition.
 */
export function createRegistry(sources: SchemaSources): Registry {
  const loaded = loadSchemas(normalizeSources(sources));
  if (loaded.issues.length > 0) throw new SchemaError(loaded.issues);
  return registryFromLoaded(loaded);
}

export function registryFromLoaded(loaded: LoadedSchemas): Registry {
  const byId = new Map(loaded.problems.map((p) => [p.id, p]));
  const listProblems: Registry['listProblems'] = (options = {}) =>
    loaded.problems
      .filter((p) => options.includeUnlisted || p.listed)
      .filter((p) => !options.category || p.category === options.category)
      .map(summarizeProblem);
  return {
    platform: loaded.platform,
    categories: loaded.categories,
    outputs: loaded.outputs,
    problems: loaded.problems,
    accountForms: loaded.accountForms,
    validateAccountForm: (formId, values, checks) =>
      validateAccountForm(loaded.accountForms, formId, values, checks),
    listProblems,
    listCategories(options = {}) {
      return loaded.categories
        .map((c) => ({
          ...c,
          problems: listProblems({ includeUnlisted: options.includeUnlisted, category: c.id }),
        }))
        .filter((c) => options.includeEmpty || c.problems.length > 0);
    },
    getProblem(id) {
      const p = byId.get(id);
      if (!p) throw new UnknownProblemError(id);
      return p;
    },
    findProblem(id) {
      return byId.get(id);
    },
    listExamples(options = {}) {
      return loaded.categories.flatMap((c) =>
        loaded.problems
          .filter(
            (p) =>
              p.category === c.id && (options.includeUnlisted || p.listed) && p.example.gallery !== false,
          )
          .map((p) => ({
            problemId: p.id,
            problemName: p.name,
            category: c.id,
            categoryLabel: c.label,
            appName: p.example.appName,
            workspace: p.workspace,
            description: p.example.description ?? p.description,
            useCases: [...p.useCases],
          })),
      );
    },
  };
}
