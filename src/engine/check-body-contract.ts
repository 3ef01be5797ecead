// The checker's guard against a rule stated twice: every value a form field can hold must be a
// value the job body accepts where the mapping puts it. A form whose epochs go to 200 while the
// body stops at 100 would accept 150 on save and fail only when the job runs; this refuses it at
// `npm run schemas:check`, naming the mapping entry, the form field and the body property.
//
// "Every value the form admits" is the widest set: the field's base declaration and every
// conditional branch that can make it active (each merged with the base), through nested fields
// and array items, after the entry's transform. Options (enum, const) are checked one by one
// against the body property; open ranges are compared keyword by keyword.

import type { ValidateFunction } from 'ajv/dist/2020';

import { createPlainAjv, type AjvInstance } from './ajv';
import { conditionsOf, declaredFieldNames, firstDeclaration } from './conditions';
import { deepEqual, isPlainObject } from './json';
import { TRANSFORMS } from './mapping';
import { reportEntry } from './mapping-fragments';
import { parsePointer } from './pointer';
import { mergeSchemaOverride } from './refs';
import type {
  FieldSchema,
  FormKey,
  JsonSchema,
  MappingEntry,
  MappingOrigin,
  ObjectSchema,
  Problem,
} from './types';

type Reporter = (pointer: string, reason: string) => void;

/**
 * Every schema the field at `segments` can have: its base declaration when some state leaves it
 * unnarrowed, and the base merged with each branch that declares or narrows it.
 */
export function fieldVariants(
  schema: ObjectSchema | FieldSchema,
  segments: readonly string[],
): FieldSchema[] {
  if (segments.length === 0) return [schema as FieldSchema];
  const [name, ...rest] = segments as [string, ...string[]];
  let here: FieldSchema[] = [];
  if (/^\d+$/.test(name) && schema.items) {
    here = [schema.items as FieldSchema];
  } else {
    const base = schema.properties?.[name];
    // Without a base, a branch without a title narrows the field another branch declares (ADAM refused).
    const declared = base ?? firstDeclaration(schema, name);
    for (const condition of conditionsOf(schema)) {
      for (const override of [condition.then.properties?.[name], condition.else?.properties?.[name]]) {
        if (!override) continue;
        const narrows =
          base ?? (override.title === undefined && declared !== override ? declared : undefined);
        here.push(narrows ? mergeSchemaOverride(narrows, override) : override);
      }
    }
    if (base && !alwaysNarrowed(schema, name)) here.unshift(base);
  }
  return here.flatMap((variant) => fieldVariants(variant, rest));
}

/**
 * Whether every valid value of the object has some branch narrowing `name`: one condition
 * narrows it in both `then` and `else`, or the `then` branches narrowing it test one required
 * base field on all of its options (Classical / Quantum).
 */
function alwaysNarrowed(schema: ObjectSchema | FieldSchema, name: string): boolean {
  const conditions = conditionsOf(schema);
  if (conditions.some((c) => c.then.properties?.[name] && c.else?.properties?.[name])) return true;
  return coversEveryOption(schema, (c) => !!c.then.properties?.[name]);
}

/**
 * Whether the `then` branches picked by `branchHas` together apply in every valid state: they test
 * one required base field, and between them on every one of its options.
 */
function coversEveryOption(
  schema: ObjectSchema | FieldSchema,
  branchHas: (condition: ReturnType<typeof conditionsOf>[number]) => boolean,
): boolean {
  const covered = new Map<string, unknown[]>();
  for (const condition of conditionsOf(schema)) {
    if (!branchHas(condition)) continue;
    const tested = Object.entries(condition.if.properties ?? {});
    if (tested.length !== 1) continue;
    const [field, rule] = tested[0]!;
    const values = 'const' in rule ? [rule.const] : (rule.enum ?? []);
    covered.set(field, [...(covered.get(field) ?? []), ...values]);
  }
  for (const [field, values] of covered) {
    const options = schema.properties?.[field]?.enum;
    if (!schema.required?.includes(field) || !Array.isArray(options)) continue;
    if (options.every((o) => values.some((v) => deepEqual(v, o)))) return true;
  }
  return false;
}

/** Whether every valid value of the object holds at least one of `names`. */
function oneAlwaysPresent(schema: ObjectSchema | FieldSchema, names: readonly string[]): boolean {
  if (names.some((n) => schema.required?.includes(n) && schema.properties?.[n])) return true;
  const thenRequires = (c: ReturnType<typeof conditionsOf>[number]) =>
    names.some((n) => c.then.required?.includes(n));
  if (conditionsOf(schema).some((c) => thenRequires(c) && names.some((n) => c.else?.required?.includes(n)))) {
    return true;
  }
  return coversEveryOption(schema, thenRequires);
}

/**
 * Whether a valid form always holds a value for one of the pointers (segments after the form
 * key). Pointers of a `from` list are taken together at their last level (sim or real device).
 */
function alwaysPresent(form: ObjectSchema, pointers: readonly (readonly string[])[]): boolean {
  const parents = new Set(pointers.map((p) => JSON.stringify(p.slice(0, -1))));
  if (parents.size !== 1) return pointers.some((p) => alwaysPresent(form, [p]));
  const parentPath = pointers[0]!.slice(0, -1);
  let level: FieldSchema[] = [form as FieldSchema];
  for (const segment of parentPath) {
    if (!level.every((schema) => oneAlwaysPresent(schema, [segment]))) return false;
    level = level.flatMap((schema) => fieldVariants(schema, [segment]));
  }
  const names = pointers.map((p) => p[p.length - 1]!);
  return level.every((schema) => oneAlwaysPresent(schema, names));
}

function typesOf(schema: JsonSchema): string[] | undefined {
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return undefined;
}

function admitsType(body: JsonSchema, type: string): boolean {
  const types = typesOf(body);
  if (!types) return true;
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/** What a transform can turn a value of `type` into. */
function transformedTypes(transform: MappingEntry['transform'], type: string): string[] {
  if (transform === 'toString') return type === 'null' ? ['null'] : ['string'];
  if (transform === 'toNumber' && type === 'string') return ['number', 'string'];
  return [type];
}

interface Bound {
  value: number;
  exclusive: boolean;
}

/** A form limit as a number: plain numbers, or a sibling's own limit for a relative $data. */
function limitOf(
  field: FieldSchema,
  parent: FieldSchema | undefined,
  side: 'min' | 'max',
  depth = 0,
): Bound | undefined {
  const [incl, excl] = side === 'min' ? ['minimum', 'exclusiveMinimum'] : ['maximum', 'exclusiveMaximum'];
  const candidates: Bound[] = [];
  for (const [keyword, exclusive] of [
    [incl, false],
    [excl, true],
  ] as const) {
    const v = field[keyword];
    if (typeof v === 'number') candidates.push({ value: v, exclusive });
    else if (isPlainObject(v) && typeof v.$data === 'string' && parent && depth < 4) {
      // "1/from_index": at least (or at most) whatever the sibling may be.
      const m = /^1\/([^/]+)$/.exec(v.$data);
      const sibling = m ? parent.properties?.[m[1]!] : undefined;
      const b = sibling ? limitOf(sibling, parent, side, depth + 1) : undefined;
      if (b) candidates.push({ value: b.value, exclusive: b.exclusive || exclusive });
    }
  }
  if (candidates.length === 0) return undefined;
  // Both keywords apply: the tighter one wins.
  return candidates.reduce((a, b) => {
    if (a.value === b.value) return { value: a.value, exclusive: a.exclusive || b.exclusive };
    return (side === 'min' ? a.value > b.value : a.value < b.value) ? a : b;
  });
}

function bodyLimit(body: JsonSchema, side: 'min' | 'max'): Bound | undefined {
  return limitOf(body as FieldSchema, undefined, side);
}

/** Whether every number within `form` lies within `body` on one side. */
function withinLimit(form: Bound | undefined, body: Bound | undefined, side: 'min' | 'max'): boolean {
  if (!body) return true;
  if (!form) return false;
  const inside = side === 'min' ? form.value > body.value : form.value < body.value;
  if (inside) return true;
  if (form.value !== body.value) return false;
  return !body.exclusive || form.exclusive;
}

function describe(b: Bound | undefined, side: 'min' | 'max'): string {
  if (!b) return side === 'min' ? 'with no lower limit' : 'with no upper limit';
  const op = side === 'min' ? (b.exclusive ? '>' : '>=') : b.exclusive ? '<' : '<=';
  return `${op} ${b.value}`;
}

class BodyContract {
  private readonly ajv: AjvInstance = createPlainAjv();
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(
    private readonly problem: Problem,
    private readonly report: Reporter,
  ) {}

  private validator(body: JsonSchema): ValidateFunction | undefined {
    const key = JSON.stringify(body);
    let v = this.validators.get(key);
    if (!v) {
      try {
        v = this.ajv.compile(body);
      } catch {
        return undefined; // compile errors are reported once for the whole body schema
      }
      this.validators.set(key, v);
    }
    return v;
  }

  /** The reason the body refuses `value`, or undefined when it accepts it. */
  private refusal(body: JsonSchema, value: unknown): string | undefined {
    const validate = this.validator(body);
    if (!validate || validate(value)) return undefined;
    const e = validate.errors?.[0];
    return `${e?.instancePath ? e.instancePath + ' ' : ''}${e?.message ?? 'invalid'}`;
  }

  /** Reasons the field `form` admits a value `body` refuses (empty when it does not). */
  private compare(
    form: FieldSchema,
    parent: FieldSchema | undefined,
    body: JsonSchema,
    transform: MappingEntry['transform'],
    where: string,
  ): string[] {
    const apply = (v: unknown) => (transform ? TRANSFORMS[transform](v) : v);
    const options = Array.isArray(form.enum) ? form.enum : 'const' in form ? [form.const] : undefined;
    if (options) {
      return options.flatMap((option) => {
        const why = this.refusal(body, apply(option));
        return why ? [`${where} offers ${JSON.stringify(option)}, which the job body refuses (${why})`] : [];
      });
    }
    const formTypes = typesOf(form);
    if (!formTypes) return [`${where} has no type, so the job body cannot be shown to accept it`];
    const reasons: string[] = [];
    const outTypes = [...new Set(formTypes.flatMap((t) => transformedTypes(transform, t)))];
    for (const t of outTypes) {
      if (!admitsType(body, t))
        reasons.push(
          `${where} admits ${t === 'null' ? 'null' : `any ${t}`}, the job body does not (type ${JSON.stringify(body.type)})`,
        );
    }
    const bodyOptions = Array.isArray(body.enum) ? body.enum : 'const' in body ? [body.const] : undefined;
    if (bodyOptions) {
      reasons.push(
        `${where} admits any ${outTypes.join(' or ')}, the job body only ${JSON.stringify(bodyOptions)}`,
      );
      return reasons;
    }
    // Past a type-changing transform only the type can be compared.
    const sameShape = transform !== 'toString' && transform !== 'toNumber';
    if (!sameShape) return reasons;
    if (formTypes.some((t) => t === 'number' || t === 'integer')) {
      for (const side of ['min', 'max'] as const) {
        const f = limitOf(form, parent, side);
        const b = bodyLimit(body, side);
        if (!withinLimit(f, b, side)) {
          reasons.push(
            `${where} admits numbers ${describe(f, side)}, the job body requires ${describe(b, side)}`,
          );
        }
      }
      if (typeof body.multipleOf === 'number') {
        const m = form.multipleOf;
        if (typeof m !== 'number' || !Number.isInteger(m / body.multipleOf)) {
          reasons.push(`${where} admits numbers that are not multiples of ${body.multipleOf}`);
        }
      }
    }
    if (formTypes.includes('string')) {
      const fMin = typeof form.minLength === 'number' ? form.minLength : 0;
      if (typeof body.minLength === 'number' && fMin < body.minLength) {
        reasons.push(
          `${where} admits strings of length ${fMin}, the job body requires minLength ${body.minLength}`,
        );
      }
      if (
        typeof body.maxLength === 'number' &&
        !(typeof form.maxLength === 'number' && form.maxLength <= body.maxLength)
      ) {
        reasons.push(`${where} admits strings longer than the job body's maxLength ${body.maxLength}`);
      }
      if (typeof body.pattern === 'string' && form.pattern !== body.pattern) {
        reasons.push(`${where} does not require the job body's pattern ${body.pattern}`);
      }
    }
    if (formTypes.includes('array')) {
      const fMin = typeof form.minItems === 'number' ? form.minItems : 0;
      if (typeof body.minItems === 'number' && fMin < body.minItems) {
        reasons.push(`${where} admits ${fMin} items, the job body requires minItems ${body.minItems}`);
      }
      if (
        typeof body.maxItems === 'number' &&
        !(typeof form.maxItems === 'number' && form.maxItems <= body.maxItems)
      ) {
        reasons.push(`${where} admits more items than the job body's maxItems ${body.maxItems}`);
      }
      if (body.uniqueItems === true && form.uniqueItems !== true) {
        reasons.push(`${where} admits repeated items, the job body requires uniqueItems`);
      }
      if (isPlainObject(body.items)) {
        if (!form.items) reasons.push(`${where} admits items of any kind, the job body restricts them`);
        else reasons.push(...this.compare(form.items, undefined, body.items, transform, `${where} items`));
      }
    }
    if (formTypes.includes('object') && isPlainObject(body.properties)) {
      const bodyProps = body.properties as Record<string, JsonSchema>;
      for (const name of declaredFieldNames(form)) {
        const sub = bodyProps[name];
        if (!sub) {
          if (body.additionalProperties === false) {
            reasons.push(`${where}/${name} is a field the job body does not allow`);
          }
          continue;
        }
        for (const variant of fieldVariants(form, [name])) {
          reasons.push(...this.compare(variant, form, sub, transform, `${where}/${name}`));
        }
      }
    }
    return reasons;
  }

  check(entries: readonly MappingEntry[], origins: readonly MappingOrigin[], bodySchema: JsonSchema): void {
    entries.forEach((entry, i) => {
      const entryReport = (suffix: string, reason: string) =>
        reportEntry(this.report, origins[i], suffix, reason);
      const segments = parsePointer(entry.to);
      let body: JsonSchema | undefined = bodySchema;
      for (const s of segments) {
        const props: Record<string, unknown> | undefined = isPlainObject(body?.properties)
          ? body.properties
          : undefined;
        body = props && isPlainObject(props[s]) ? (props[s] as JsonSchema) : undefined;
      }
      if (!body) return; // an unknown target is reported by the mapping check
      const bodyAt = `the job body's ${entry.to}`;
      if ('const' in entry) {
        const why = this.refusal(body, entry.const);
        if (why) entryReport('/const', `${JSON.stringify(entry.const)} is refused by ${bodyAt}: ${why}`);
      }
      if ('default' in entry) {
        const why = this.refusal(body, entry.default);
        if (why) {
          entryReport('/default', `default ${JSON.stringify(entry.default)} is refused by ${bodyAt}: ${why}`);
        }
      }
      const froms = Array.isArray(entry.from) ? entry.from : entry.from !== undefined ? [entry.from] : [];
      froms.forEach((from, j) => {
        const [formKey, ...rest] = parsePointer(from);
        const form = this.problem.forms[formKey as FormKey];
        if (!form || rest.length === 0) return;
        const parentSegments = rest.slice(0, -1);
        const parents = parentSegments.length
          ? fieldVariants(form.schema, parentSegments)
          : [form.schema as FieldSchema];
        const reasons = new Set<string>();
        for (const parent of parents) {
          for (const variant of fieldVariants(parent, rest.slice(-1))) {
            for (const r of this.compare(variant, parent, body!, entry.transform, from)) reasons.add(r);
          }
        }
        const suffix = `/from${Array.isArray(entry.from) ? `/${j}` : ''}`;
        for (const reason of reasons) entryReport(suffix, `${reason} (${bodyAt})`);
      });
    });
  }
}

/**
 * Reports a key the job body requires that a valid form may leave unset: every entry for it reads
 * a field only some states hold and gives no default (the key would be missing when the job runs).
 */
function checkRequiredKeysAlwaysSet(problem: Problem, report: Reporter): void {
  const required = Array.isArray(problem.job.bodySchema.required)
    ? (problem.job.bodySchema.required as string[])
    : [];
  for (const key of required) {
    const entries = problem.job.body
      .map((entry, i) => ({ entry, i }))
      .filter(({ entry }) => parsePointer(entry.to)[0] === key);
    if (entries.length === 0) continue; // reported by the mapping check
    const guaranteed = entries.some(({ entry }) => {
      if (entry.when) return false;
      if ('const' in entry || 'default' in entry || entry.context !== undefined) return true;
      const froms = Array.isArray(entry.from) ? entry.from : entry.from !== undefined ? [entry.from] : [];
      const byForm = froms.map((f) => parsePointer(f));
      const formKey = byForm[0]?.[0];
      const form = formSchemaOf(problem, formKey);
      if (!form || byForm.some((p) => p[0] !== formKey || p.length < 2)) return false;
      return alwaysPresent(
        form,
        byForm.map((p) => p.slice(1)),
      );
    });
    if (guaranteed) continue;
    const { entry, i } = entries.find(({ entry }) => entry.from !== undefined) ?? entries[0]!;
    reportEntry(
      report,
      problem.mappingOrigins.body[i],
      '',
      `the job body requires "${key}" but a valid form may leave ${JSON.stringify(entry.from ?? entry.to)} unset and the entry has no default`,
    );
  }
}

function formSchemaOf(problem: Problem, key: string | undefined): ObjectSchema | undefined {
  return key === undefined ? undefined : problem.forms[key as FormKey]?.schema;
}

/** Reports every mapping entry whose source admits a value the job-body schema refuses. */
export function checkBodyContract(problem: Problem, report: Reporter): void {
  checkRequiredKeysAlwaysSet(problem, report);
  new BodyContract(problem, report).check(
    problem.job.body,
    problem.mappingOrigins.body,
    problem.job.bodySchema,
  );
}
