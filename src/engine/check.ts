// The schema checker behind `npm run schemas:check`: meta-schema validation (registry.ts) plus
// cross-checks that a meta-schema cannot express. Every finding names the file, a JSON pointer
// into it and the reason.

import { createAppDataAjv, createDraft07Ajv, type AjvInstance } from './ajv';
import { buildValidationSchema } from './app-data-schema';
import { checkBodyContract } from './check-body-contract';
import {
  conditionsOf,
  declaredFieldNames,
  firstDeclaration,
  hasFields,
  lookupField,
  pruneValue,
} from './conditions';
import { fieldOptions, tabOfForm } from './forms';
import { deepEqual, isPlainObject } from './json';
import { JOB_EXTENSION_TARGET, mapJobBody, TRANSFORM_NAMES } from './mapping';
import { reportEntry } from './mapping-fragments';
import { formatPointer, parsePointer } from './pointer';
import {
  loadSchemas,
  normalizeSources,
  SCHEMA_FILES,
  type LoadedSchemas,
  type SchemaSources,
} from './registry';
import { validateAppData, validateJobBody } from './validate';
import {
  FORM_KEYS,
  type Condition,
  type ConditionTest,
  type FieldSchema,
  type FormKey,
  type JsonSchema,
  type MappingEntry,
  type MappingOrigin,
  type ObjectSchema,
  type PlatformConfig,
  type Problem,
  type SchemaIssue,
} from './types';

const NON_KEYWORD_MESSAGES = new Set(['required', '_']);

function typeMatches(type: FieldSchema['type'], value: unknown): boolean {
  if (type === undefined) return true;
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => {
    switch (t) {
      case 'string':
        return typeof value === 'string';
      case 'number':
        return typeof value === 'number';
      case 'integer':
        return Number.isInteger(value);
      case 'boolean':
        return typeof value === 'boolean';
      case 'array':
        return Array.isArray(value);
      case 'object':
        return isPlainObject(value);
      case 'null':
        return value === null;
      default:
        return true;
    }
  });
}

/** Where a field of an object schema is declared (its base declaration, else its first branch). */
function declarationPointer(schema: ObjectSchema | FieldSchema, name: string, base: string): string {
  if (schema.properties?.[name]) return `${base}/properties/${name}`;
  const allOf = schema.allOf ?? [];
  for (let i = 0; i < allOf.length; i++) {
    const c = allOf[i];
    for (const b of ['then', 'else'] as const) {
      const branch = isPlainObject(c) ? (c as Record<string, unknown>)[b] : undefined;
      if (isPlainObject(branch) && isPlainObject(branch.properties) && name in branch.properties) {
        return `${base}/allOf/${i}/${b}/properties/${name}`;
      }
    }
  }
  return base;
}

interface Reporter {
  (pointer: string, reason: string): void;
}

function checkErrorMessages(
  schema: Record<string, unknown>,
  at: string,
  report: Reporter,
  requiredNames: string[],
) {
  const messages = schema.errorMessage;
  if (!isPlainObject(messages)) return;
  for (const key of Object.keys(messages)) {
    if (key === 'required') {
      const req = messages.required;
      if (!isPlainObject(req)) continue;
      for (const name of Object.keys(req)) {
        if (!requiredNames.includes(name)) {
          report(
            `${at}/errorMessage/required/${name}`,
            `message for "${name}", which is not in "required" here`,
          );
        }
      }
      continue;
    }
    if (NON_KEYWORD_MESSAGES.has(key)) continue;
    if (!(key in schema)) {
      report(`${at}/errorMessage/${key}`, `message for keyword "${key}", which this schema does not use`);
    }
  }
}

/** Checks one field (after inlining) and, recursively, the fields it contains. */
function checkField(
  schema: FieldSchema,
  at: string,
  report: Reporter,
  problem: Problem,
  opts: { override: boolean },
): void {
  if (!opts.override) {
    if (!schema.title) report(at, 'field has no "title" (its label)');
    if (!schema['x-field']) report(at, 'field has no "x-field" (its kind)');
  }
  const xField = schema['x-field'];
  if (xField?.labels) {
    if (!Array.isArray(schema.enum)) report(`${at}/x-field/labels`, 'labels need an "enum" to label');
    else if (xField.labels.length !== schema.enum.length) {
      report(`${at}/x-field/labels`, `${xField.labels.length} labels for ${schema.enum.length} enum values`);
    }
  }
  // An override (a condition's then) narrows the enum and keeps the base field's x-field.
  for (const value of opts.override ? [] : Object.keys(xField?.disabled ?? {})) {
    if (!schema.enum?.some((v) => String(v) === value)) {
      report(`${at}/x-field/disabled`, `disabled option ${JSON.stringify(value)} is not an enum value`);
    }
  }
  if (xField?.options === 'columns' && Array.isArray(schema.enum)) {
    report(`${at}/x-field/options`, 'a column selector takes its options from the dataset; remove "enum"');
  }
  if ('default' in schema) {
    const d = schema.default;
    if (!typeMatches(schema.type, d))
      report(`${at}/default`, `default ${JSON.stringify(d)} does not match type`);
    if (Array.isArray(schema.enum) && !schema.enum.some((e) => deepEqual(e, d))) {
      report(
        `${at}/default`,
        `default ${JSON.stringify(d)} is not one of the options ${JSON.stringify(schema.enum)}`,
      );
    }
    if (typeof d === 'number') {
      if (typeof schema.minimum === 'number' && d < schema.minimum)
        report(`${at}/default`, `default ${d} < minimum`);
      if (typeof schema.maximum === 'number' && d > schema.maximum)
        report(`${at}/default`, `default ${d} > maximum`);
    }
  }
  if (Array.isArray(schema.enum)) {
    for (let i = 0; i < schema.enum.length; i++) {
      if (!typeMatches(schema.type, schema.enum[i]))
        report(`${at}/enum/${i}`, 'option does not match the type');
    }
  }
  for (const keyword of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'x-minimum']) {
    const v = schema[keyword];
    if (isPlainObject(v) && typeof v.$data === 'string') {
      const ptr = v.$data;
      if (ptr.startsWith('/') && !/^\/context\/(rowCount)$/.test(ptr)) {
        report(`${at}/${keyword}`, `absolute $data pointers may only refer to /context/rowCount, not ${ptr}`);
      }
    }
  }
  checkErrorMessages(schema, at, report, schema.required ?? []);
  if (schema.items) checkField(schema.items, `${at}/items`, report, problem, { override: true });
  if (hasFields(schema)) checkObject(schema, at, report, problem);
}

/** A field's declaration in the branch of another condition than `condition`. */
function otherDeclaration(
  schema: ObjectSchema | FieldSchema,
  condition: Condition,
  name: string,
): FieldSchema | undefined {
  for (const other of conditionsOf(schema)) {
    if (other === condition) continue;
    const declared = other.then.properties?.[name] ?? other.else?.properties?.[name];
    if (declared) return declared;
  }
  return undefined;
}

/** A condition's test (or a nested one, of an object field): every tested field declared, every value an option. */
function checkConditionTest(
  schema: ObjectSchema | FieldSchema,
  test: Partial<ConditionTest>,
  at: string,
  report: Reporter,
): void {
  for (const [name, rule] of Object.entries(test.properties ?? {})) {
    const tested = firstDeclaration(schema, name);
    if (!tested) {
      report(`${at}/properties/${name}`, `condition tests "${name}", which is not declared`);
      continue;
    }
    const values = 'const' in rule ? [rule.const] : (rule.enum ?? []);
    for (const v of values) {
      if (Array.isArray(tested.enum) && !tested.enum.some((e) => deepEqual(e, v))) {
        report(`${at}/properties/${name}`, `${JSON.stringify(v)} is not an option of "${name}"`);
      } else if (!typeMatches(tested.type, v)) {
        report(`${at}/properties/${name}`, `${JSON.stringify(v)} does not match the type of "${name}"`);
      }
    }
    if (rule.properties || rule.required)
      checkConditionTest(tested, rule, `${at}/properties/${name}`, report);
  }
  for (const name of test.required ?? []) {
    if (!(name in (test.properties ?? {}))) {
      report(`${at}/required`, `"${name}" is required by the condition but not tested`);
    }
  }
}

function checkObject(
  schema: ObjectSchema | FieldSchema,
  at: string,
  report: Reporter,
  problem: Problem,
): void {
  const declared = declaredFieldNames(schema);
  const baseNames = Object.keys(schema.properties ?? {});
  for (const name of schema.required ?? []) {
    if (!declared.includes(name)) report(`${at}/required`, `"${name}" is required but not declared`);
  }
  for (const name of baseNames) {
    checkField(schema.properties![name]!, `${at}/properties/${name}`, report, problem, { override: false });
  }
  const allOf = schema.allOf ?? [];
  conditionsOf(schema).forEach((condition) => {
    const i = allOf.indexOf(condition);
    const cAt = `${at}/allOf/${i}`;
    checkConditionTest(schema, condition.if, `${cAt}/if`, report);
    for (const b of ['then', 'else'] as const) {
      const branch = condition[b];
      if (!branch) continue;
      for (const [name, fieldSchema] of Object.entries(branch.properties ?? {})) {
        // A branch without a title narrows a field declared in the base or in another condition's branch.
        const base =
          schema.properties?.[name] ??
          (fieldSchema.title === undefined ? otherDeclaration(schema, condition, name) : undefined);
        const merged = base ? { ...base, ...fieldSchema } : fieldSchema;
        checkField(merged, `${cAt}/${b}/properties/${name}`, report, problem, { override: !!base });
      }
      for (const name of branch.required ?? []) {
        if (!declared.includes(name))
          report(`${cAt}/${b}/required`, `"${name}" is required but not declared`);
      }
      checkErrorMessages(branch as Record<string, unknown>, `${cAt}/${b}`, report, branch.required ?? []);
    }
  });
  checkErrorMessages(schema, at, report, schema.required ?? []);
}

function checkPointerInAppData(problem: Problem, pointer: string): string | undefined {
  const [form, ...rest] = parsePointer(pointer);
  if (form === 'outputs') return undefined;
  const def = problem.forms[form as FormKey];
  if (!def) return `"${form}" is not a form of this problem`;
  if (rest.length === 0) return undefined;
  return lookupField(def.schema, rest) ? undefined : `${pointer} is not a declared field`;
}

function checkMapping(
  problem: Problem,
  entries: readonly MappingEntry[],
  origins: readonly MappingOrigin[],
  report: Reporter,
  target?: JsonSchema,
): void {
  entries.forEach((entry, i) => {
    const entryReport = (suffix: string, reason: string) => reportEntry(report, origins[i], suffix, reason);
    const froms = Array.isArray(entry.from) ? entry.from : entry.from !== undefined ? [entry.from] : [];
    froms.forEach((from, j) => {
      const problemText = checkPointerInAppData(problem, from);
      if (problemText) entryReport(`/from${Array.isArray(entry.from) ? `/${j}` : ''}`, problemText);
    });
    if (entry.when) {
      const problemText = checkPointerInAppData(problem, entry.when.pointer);
      if (problemText) entryReport('/when/pointer', problemText);
    }
    if (entry.transform && !TRANSFORM_NAMES.includes(entry.transform)) {
      entryReport('/transform', `unknown transform "${entry.transform}"`);
    }
    if (target) {
      const [key] = parsePointer(entry.to);
      const props = isPlainObject(target.properties) ? target.properties : {};
      if (!key || !(key in props)) {
        const what = target === JOB_EXTENSION_TARGET ? 'the job extension' : 'the job-body schema';
        entryReport('/to', `${entry.to} is not a property of ${what}`);
      }
    }
  });
}

// The compile checks reuse one instance of each ajv (a new one compiles its meta-schemas again: 1.7-2.8 s
// -> 0.7-1.1 s for the 6 problems at load 15); each schema is removed after, so no check sees another's.
let draft07Ajv: Pick<AjvInstance, 'compile' | 'removeSchema'> | undefined;
let appDataAjv: AjvInstance | undefined;

function compileOnce(ajv: Pick<AjvInstance, 'compile' | 'removeSchema'>, schema: object): void {
  try {
    ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}

/** Cross-checks of one resolved problem. */
export function crossCheckProblem(problem: Problem, loaded: LoadedSchemas): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const report: Reporter = (pointer, reason) => issues.push({ file: problem.source, pointer, reason });

  const expectedFile = `problems/${problem.id}.json`;
  if (problem.source !== expectedFile) report('/id', `id "${problem.id}" does not match the file name`);
  if (!loaded.categories.some((c) => c.id === problem.category)) {
    report('/category', `unknown category "${problem.category}" (see categories.json)`);
  }
  problem.outputs.forEach((name, i) => {
    if (!(name in loaded.outputs)) report(`/outputs/${i}`, `unknown output "${name}" (see outputs.json)`);
  });

  const sectionIds = new Map<string, string>();
  for (const key of problem.formKeys) {
    const form = problem.forms[key]!;
    const at = `/forms/${key}`;
    checkObject(form.schema, `${at}/schema`, report, problem);
    const declared = declaredFieldNames(form.schema);
    const placed = new Map<string, number>();
    form.sections.forEach((section, i) => {
      const tab = tabOfForm(problem.platform, key);
      const other = sectionIds.get(`${tab}:${section.id}`);
      if (other) report(`${at}/sections/${i}/id`, `section id "${section.id}" is also used in ${other}`);
      sectionIds.set(`${tab}:${section.id}`, `${at}/sections/${i}`);
      section.fields.forEach((name, j) => {
        if (!declared.includes(name)) {
          report(`${at}/sections/${i}/fields/${j}`, `"${name}" is not a field of ${key}`);
        }
        if (placed.has(name))
          report(`${at}/sections/${i}/fields/${j}`, `"${name}" is already in another section`);
        placed.set(name, i);
      });
      if (section.wizardStep !== undefined && key === 'model_configurations') {
        report(`${at}/sections/${i}/wizardStep`, 'wizardStep is for the dataset tab only');
      }
    });
    for (const name of declared) {
      const schema = firstDeclaration(form.schema, name);
      if (schema?.['x-field']?.kind === 'hidden') continue;
      if (!placed.has(name)) {
        report(declarationPointer(form.schema, name, `${at}/schema`), `field "${name}" is in no section`);
      }
    }
  }

  // Prediction: every model choice says which training answers for it.
  problem.predict?.models.forEach((model, i) => {
    if (!problem.predict!.modelKinds[model]) {
      report(`/predict/models/${i}`, `model "${model}" has no entry in predict.modelKinds`);
    }
  });

  // Job request and body.
  const bodySchema = problem.job.bodySchema;
  checkMapping(problem, problem.job.body, problem.mappingOrigins.body, report, bodySchema);
  checkMapping(problem, problem.job.request.params ?? [], problem.mappingOrigins.params, report);
  checkMapping(problem, problem.job.request.query ?? [], problem.mappingOrigins.query, report);
  checkMapping(
    problem,
    problem.job.extension ?? [],
    problem.mappingOrigins.extension,
    report,
    JOB_EXTENSION_TARGET,
  );
  const placeholders = [...problem.job.request.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!);
  for (const name of placeholders) {
    const fromParams = (problem.job.request.params ?? []).some((e) => e.to === `/${name}`);
    if (!fromParams && name !== 'userId' && name !== 'applicationId') {
      report('/job/request/path', `placeholder {${name}} is filled by no param and no context value`);
    }
  }
  const targets = new Set(problem.job.body.map((e) => parsePointer(e.to)[0]));
  const required = Array.isArray(bodySchema.required) ? (bodySchema.required as string[]) : [];
  required.forEach((name, i) => {
    if (!targets.has(name))
      report(`/job/bodySchema/required/${i}`, `"${name}" is required but no mapping entry sets it`);
  });
  let compiled = true;
  try {
    validateJobBody(problem, {});
  } catch (err) {
    compiled = false;
    report('/job/bodySchema', `does not compile as plain JSON Schema: ${(err as Error).message}`);
  }
  try {
    const { $schema: _draft, ...draft07 } = bodySchema;
    compileOnce((draft07Ajv ??= createDraft07Ajv()), draft07);
  } catch (err) {
    compiled = false;
    report(
      '/job/bodySchema',
      `is not valid draft-07 JSON Schema (the worker validates with draft-07): ${(err as Error).message}`,
    );
  }
  try {
    compileOnce((appDataAjv ??= createAppDataAjv()), buildValidationSchema(problem));
  } catch (err) {
    compiled = false;
    report('/forms', `the app_data schema does not compile: ${(err as Error).message}`);
  }
  if (!compiled) return issues;
  checkBodyContract(problem, report);

  // The example: it must validate, hold no inactive values, and map to a valid job body.
  const example = problem.example;
  const context = example.context ?? {};
  const result = validateAppData(problem, example.appData, context);
  for (const e of result.errors) report(`/example/appData${e.path}`, `example is invalid: ${e.message}`);
  for (const key of problem.formKeys) {
    const value = example.appData[key];
    if (value !== undefined && !deepEqual(pruneValue(problem.forms[key]!.schema, value), value)) {
      report(`/example/appData/${key}`, 'example holds values of inactive or undeclared fields');
    }
    const columns = context.columns;
    if (columns && isPlainObject(value)) {
      for (const name of declaredFieldNames(problem.forms[key]!.schema)) {
        const schema = firstDeclaration(problem.forms[key]!.schema, name)!;
        if (schema['x-field']?.options !== 'columns' || value[name] === undefined) continue;
        const options = (fieldOptions(schema, context, problem.platform) ?? []).map((o) => o.value);
        const chosen = Array.isArray(value[name]) ? (value[name] as unknown[]) : [value[name]];
        chosen.forEach((c) => {
          if (!options.includes(c as string)) {
            report(
              `/example/appData/${key}/${name}`,
              `"${String(c)}" is not a visible column of the example dataset`,
            );
          }
        });
      }
    }
  }
  const dataset = example.appData.dataset;
  if (isPlainObject(dataset) && typeof dataset.sample === 'string') {
    if (!problem.dataset.samples.some((s) => s.id === dataset.sample)) {
      report('/example/appData/dataset/sample', `unknown sample dataset "${dataset.sample}"`);
    }
  }
  if (result.valid) {
    const body = mapJobBody(problem, example.appData, { applicationId: 1, userId: 1, ...context });
    const bodyResult = validateJobBody(problem, body);
    for (const e of bodyResult.errors) {
      report('/job/body', `the example's job body is invalid at ${e.path || '/'}: ${e.message}`);
    }
  }
  return issues;
}

/** platform.json's tabs are the one list of which tab shows which form: each form exactly once. */
function checkTabs(platform: PlatformConfig): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const seen = new Map<FormKey, number>();
  platform.tabs.forEach((tab, i) => {
    (tab.forms ?? []).forEach((form, j) => {
      const at = `/tabs/${i}/forms/${j}`;
      if (tab.id !== 'dataset' && tab.id !== 'model') {
        issues.push({ file: SCHEMA_FILES.platform, pointer: at, reason: `the ${tab.id} tab shows no forms` });
      }
      const other = seen.get(form);
      if (other !== undefined) {
        issues.push({
          file: SCHEMA_FILES.platform,
          pointer: at,
          reason: `form "${form}" is already shown by /tabs/${other}`,
        });
      }
      seen.set(form, i);
    });
  });
  for (const form of FORM_KEYS) {
    if (!seen.has(form)) {
      issues.push({
        file: SCHEMA_FILES.platform,
        pointer: '/tabs',
        reason: `no tab shows the form "${form}"`,
      });
    }
  }
  return issues;
}

/**
 * A message text written out where platform.json's table already holds it is a second copy:
 * refuse it and name the key to refer to instead.
 */
function checkMessageCopies(sources: SchemaSources, platform: PlatformConfig): SchemaIssue[] {
  const keyOf = new Map(Object.entries(platform.messages).map(([key, text]) => [text, key]));
  const issues: SchemaIssue[] = [];
  const walk = (file: string, node: unknown, path: string[], inMessages: boolean): void => {
    if (typeof node === 'string') {
      const key = inMessages ? keyOf.get(node) : undefined;
      if (key) {
        issues.push({
          file,
          pointer: formatPointer(path),
          reason: `"${node}" is platform.json's message "${key}"; write {"$message": "${key}"}`,
        });
      }
      return;
    }
    if (Array.isArray(node)) node.forEach((v, i) => walk(file, v, [...path, String(i)], inMessages));
    else if (isPlainObject(node)) {
      for (const [k, v] of Object.entries(node)) {
        walk(file, v, [...path, k], inMessages || k === 'errorMessage' || k === 'messages');
      }
    }
  };
  for (const [file, data] of Object.entries(sources)) {
    if (
      file === SCHEMA_FILES.defs ||
      file === SCHEMA_FILES.accounts ||
      file.startsWith(SCHEMA_FILES.problemsDir)
    ) {
      walk(file, data, [], false);
    }
  }
  return issues;
}

/** Runs every check on the schema files; an empty list means all is well. */
export function checkSchemaSources(sources: SchemaSources): SchemaIssue[] {
  // Every check compiles, whatever validators are installed: this is the checker.
  const loaded = loadSchemas(normalizeSources(sources), true);
  const issues = [...loaded.issues];
  const platformOk = !issues.some((i) => i.file === SCHEMA_FILES.platform);
  if (platformOk) issues.push(...checkTabs(loaded.platform));
  for (const problem of loaded.problems) {
    if (issues.some((i) => i.file === problem.source)) continue;
    issues.push(...crossCheckProblem(problem, loaded));
  }
  // Style findings last: they must not hide the cross-checks of the file they are in.
  if (platformOk) issues.push(...checkMessageCopies(normalizeSources(sources), loaded.platform));
  return issues;
}

export function formatIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((i) => `${i.file} ${i.pointer || '/'}: ${i.reason}`).join('\n');
}

export { formatPointer };
