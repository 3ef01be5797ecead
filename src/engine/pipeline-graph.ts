// The read-only pipeline diagram, derived from the problem file: dataset -> every visible form
// section (preprocess, model configuration) -> run -> outputs. Nodes carry the values to show.

import { resolveFields } from './conditions';
import { fieldOptions, getTabSections, type SectionView } from './forms';
import { isPlainObject } from './json';
import { errorsUnder, validateAppData } from './validate';
import type {
  AppData,
  EngineContext,
  FieldSchema,
  OutputDefinition,
  Problem,
  TabId,
  ValidationResult,
} from './types';

export type PipelineNodeKind = 'dataset' | 'section' | 'run' | 'outputs';

export interface PipelineNode {
  id: string;
  kind: PipelineNodeKind;
  label: string;
  /** Tab that edits this node, if any. */
  tab?: TabId;
  sectionId?: string;
  valid: boolean;
  items: Array<{ label: string; value: string }>;
  /** Layout hint: left to right, 260 px apart. */
  position: { x: number; y: number };
}

export interface PipelineEdge {
  id: string;
  source: string;
  target: string;
}

export interface PipelineGraph {
  nodes: PipelineNode[];
  edges: PipelineEdge[];
}

function formatValue(schema: FieldSchema, value: unknown, context: EngineContext, problem: Problem): string {
  if (value === undefined || value === null || value === '') return '—';
  if (Array.isArray(value))
    return value.map((v) => formatValue(schema.items ?? {}, v, context, problem)).join(', ');
  if (isPlainObject(value)) {
    return resolveFields(schema, value)
      .filter((f) => f.active && value[f.name] !== undefined && f.schema['x-field']?.kind !== 'hidden')
      .map((f) => `${f.schema.title ?? f.name}: ${formatValue(f.schema, value[f.name], context, problem)}`)
      .join('; ');
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  const option = fieldOptions(schema, context, problem.platform)?.find((o) => o.value === value);
  return option?.label ?? String(value).replace(/\r/g, '');
}

function sectionItems(section: SectionView, problem: Problem, appData: AppData, context: EngineContext) {
  const formSchema = problem.forms[section.form]!.schema;
  const formValue = (appData[section.form] ?? {}) as Record<string, unknown>;
  const resolved = resolveFields(formSchema, formValue);
  return section.fields
    .filter((f) => f.kind !== 'hidden')
    .map((f) => {
      const schema = resolved.find((r) => r.name === f.name)?.schema ?? {};
      return { label: f.label, value: formatValue(schema, f.value, context, problem) };
    });
}

const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** What an output is, in a reader's words (the file's field and subType: img/line, input/metric, ...). */
export function outputKindLabel(output: Pick<OutputDefinition, 'field' | 'subType'>): string {
  if (output.field === 'img') return `${capitalised(output.subType)} chart`;
  if (output.subType === 'metric') return 'Number';
  return capitalised(output.subType);
}

/** What starts the run, as the workspace names it (never the request's method and path). */
export const RUN_STARTS_WITH = { label: 'Starts with', value: 'Run the Application' };

export function derivePipelineGraph(
  problem: Problem,
  appData: AppData,
  context: EngineContext = {},
  validation: ValidationResult = validateAppData(problem, appData, context),
): PipelineGraph {
  const nodes: PipelineNode[] = [];
  const push = (node: Omit<PipelineNode, 'position'>) =>
    nodes.push({ ...node, position: { x: nodes.length * 260, y: 0 } });

  const datasetSections = getTabSections(problem, 'dataset', appData, context, validation.errors);
  const dataset = (appData.dataset ?? {}) as Record<string, unknown>;
  const sample = problem.dataset.samples.find((s) => s.id === dataset.sample);
  const datasetName =
    sample?.label ??
    (typeof dataset.name === 'string' ? dataset.name : undefined) ??
    String(dataset.url ?? '—');
  push({
    id: 'dataset',
    kind: 'dataset',
    label: 'Dataset',
    tab: 'dataset',
    valid: errorsUnder(validation.errors, '/dataset').length === 0,
    items: [
      { label: 'Source', value: datasetName },
      ...(typeof context.rowCount === 'number'
        ? [{ label: 'Shape', value: `${context.rowCount} x ${context.columns?.length ?? '?'}` }]
        : []),
    ],
  });
  const sections = [
    ...datasetSections.filter((s) => s.form !== 'dataset'),
    ...getTabSections(problem, 'model', appData, context, validation.errors),
  ];
  for (const section of sections) {
    if (!section.visible) continue;
    push({
      id: `${section.form}:${section.id}`,
      kind: 'section',
      label: section.heading,
      tab: section.tab,
      sectionId: section.id,
      valid: section.fields.every((f) => f.errors.length === 0),
      items: sectionItems(section, problem, appData, context),
    });
  }
  push({
    id: 'run',
    kind: 'run',
    label: `Run ${problem.name}`,
    valid: validation.valid,
    items: [RUN_STARTS_WITH],
  });
  push({
    id: 'outputs',
    kind: 'outputs',
    label: 'Outputs',
    valid: true,
    items: (appData.outputs ?? problem.outputDefinitions).map((o) => ({
      label: o.label,
      value: outputKindLabel(o),
    })),
  });
  const edges: PipelineEdge[] = nodes.slice(1).map((node, i) => ({
    id: `${nodes[i]!.id}->${node.id}`,
    source: nodes[i]!.id,
    target: node.id,
  }));
  return { nodes, edges };
}
