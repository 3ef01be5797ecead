// Analyze, compare and graph analysis (spec workspace.md sections 5 and 7): the spec's checks and
// messages, ownership through the outputs service, the engine's grounded reports, and a language
// model's prose when one is configured and states only facts.

import type { Registry } from '../../src/engine';
import type { UserRecord } from '../auth/users-repository';
import { JobStatus } from '../jobs/job-states';
import type { JobRecord } from '../jobs/jobs-repository';
import type { OutputsService } from '../outputs/outputs-service';
import type { ErrorStatus } from '../platform/reply-schemas';
import { AnalysisEngine, type ComparisonResult } from './analysis-engine';
import { ChatModelError, type ChatModel } from './chat-model';
import type { AnalysisSubject } from './output-facts';
import { writeProse, type Prose } from './model-prose';
import { runTable, type RunTable } from './run-table';
import type { Report } from './report';
import type { Register } from './rule-set';

/** The spec's messages (workspace.md section 8 and its analysis rules in section 5). */
export const ANALYZE_REQUIRED =
  'output_id, application_name, and interpreted_type_is_technical are required.';
export const COMPARE_REQUIRED = 'Both outputId1 and outputId2 are required.';
export const INVALID_BASE64 = 'Invalid Base64 string.';
export const GRAPH_API_ERROR = 'API Error: Unable to analyze the graph.';
export const BRAIN_TUMOR_ONLY = 'Analysis is only available for Brain Tumor applications';
export const VISION_MODEL_NEEDED =
  "Reading an uploaded image needs a language model that takes images: set LLM_BASE_URL and LLM_MODEL to one. The product's own charts are read from their data: send output_id and the chart's title.";

/** The shortest chart image the spec accepts, in base64 characters after a data-image prefix. */
export const MIN_IMAGE_BASE64 = 100;

type FieldError = { field: string; message: string };
export type Refusal = { ok: false; status: ErrorStatus; detail: string; errors?: FieldError[] };
type Outcome<T> = { ok: true; value: T } | Refusal;

const refuse = (status: ErrorStatus, detail: string, errors?: FieldError[]): Refusal => ({
  ok: false,
  status,
  detail,
  ...(errors && { errors }),
});

export interface AnalyzeReply {
  output_id: number;
  message: { role: 'assistant'; content: string };
  created_at: string;
  register: Register;
  source: Prose['source'];
  note: string | null;
  report: Report;
}

export interface CompareReply extends Pick<
  ComparisonResult,
  'interpreted' | 'configurations' | 'metrics' | 'curves' | 'spread'
> {
  outputs: { id: number; name: string; model: string | null }[];
  message: { role: 'assistant'; content: string };
  created_at: string;
  register: Register;
  source: Prose['source'];
  note: string | null;
}

export interface GraphRequest {
  image_base64: string[];
  interpreted_type_is_technical: boolean | string;
  prompt_message?: string;
  application_type?: string;
  output_id?: number;
  chart?: string;
}

export interface GraphReply {
  message: { role: 'assistant'; content: string };
  created_at: string;
  source: Prose['source'] | 'vision-model';
  note: string | null;
  prompt: string;
  chart: string | null;
}

const present = (value: unknown) => typeof value === 'string' && value.trim() !== '';

/** 'true'/'false' in a query (any case), a JSON boolean in a body; null otherwise. */
export function parseFlag(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return null;
  const lowered = value.trim().toLowerCase();
  return lowered === 'true' ? true : lowered === 'false' ? false : null;
}

const registerOf = (technical: boolean): Register => (technical ? 'technical' : 'non_technical');

function parseId(value: string, field: string): number | FieldError {
  const id = /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  return Number.isSafeInteger(id) && id >= 1 && id <= 2_147_483_647
    ? id
    : { field: `/${field}`, message: `${field} must be an output id (a positive integer)` };
}

/** The base64 text of a chart image (data-image prefix removed), or why it is refused. */
export function chartImageBase64(image: string): string | null {
  const body = image.trim().replace(/^data:image\/[A-Za-z0-9.+-]+;base64,/, '');
  if (body.length < MIN_IMAGE_BASE64 || body.length % 4 !== 0) return null;
  return /^[A-Za-z0-9+/]+={0,2}$/.test(body) ? body : null;
}

/** Whether an application name asks for the brain tumor analysis ('Brain Tumor', 'brain-tumor-app'). */
const namesBrainTumor = (name: string) => /brain[\s_-]*tumou?r/i.test(name);

export class AnalysisService {
  constructor(
    private readonly deps: {
      outputs: OutputsService;
      registry: Registry;
      engine?: AnalysisEngine;
      /** The configured language model (LLM_BASE_URL), or null. */
      model: ChatModel | null;
      now?: () => Date;
    },
  ) {}

  private get engine() {
    return (this.deps.engine ??= new AnalysisEngine());
  }

  private now() {
    return (this.deps.now?.() ?? new Date()).toISOString();
  }

  /** A Completed output the caller may read, with its detail, as the engine reads it. */
  private async subject(
    caller: UserRecord,
    outputId: number,
    verb: string,
  ): Promise<Outcome<AnalysisSubject>> {
    const found = await this.deps.outputs.find(caller, outputId);
    if (!found.ok) return refuse(404, found.detail);
    const job: JobRecord = found.value;
    if (job.status !== JobStatus.completed) {
      return refuse(400, `Only a Completed output can be ${verb}; output ${job.id} is ${job.status}.`, [
        { field: '/output_id', message: `output ${job.id} is ${job.status}` },
      ]);
    }
    const detail = await this.deps.outputs.detail(caller, outputId);
    if (!detail.ok) return refuse(404, detail.detail);
    const problemName = this.deps.registry.findProblem(job.kind)?.name ?? job.kind;
    return { ok: true, value: { job, detail: detail.value, problemName } };
  }

  async analyze(
    caller: UserRecord,
    query: { output_id?: string; application_name?: string; interpreted_type_is_technical?: string },
  ): Promise<Outcome<AnalyzeReply>> {
    const missing = (['output_id', 'application_name', 'interpreted_type_is_technical'] as const).filter(
      (key) => !present(query[key]),
    );
    if (missing.length > 0) {
      return refuse(
        400,
        ANALYZE_REQUIRED,
        missing.map((key) => ({ field: `/${key}`, message: `${key} is required` })),
      );
    }
    const id = parseId(query.output_id!, 'output_id');
    if (typeof id !== 'number') return refuse(400, `${id.message}.`, [id]);
    const technical = parseFlag(query.interpreted_type_is_technical);
    if (technical === null) {
      const error = {
        field: '/interpreted_type_is_technical',
        message: 'interpreted_type_is_technical must be true or false',
      };
      return refuse(400, `${error.message}.`, [error]);
    }
    const found = await this.subject(caller, id, 'analyzed');
    if (!found.ok) return found;
    const subject = found.value;
    if (namesBrainTumor(query.application_name!) && subject.job.kind !== 'brain-tumor') {
      return refuse(400, BRAIN_TUMOR_ONLY, [{ field: '/application_name', message: BRAIN_TUMOR_ONLY }]);
    }
    const register = registerOf(technical);
    const result = this.engine.analyze(subject, register);
    const prose = await writeProse(
      this.deps.model,
      result.facts,
      result.markdown,
      register,
      `Write the analysis report of the output "${subject.detail.name}" (${subject.problemName}).`,
    );
    return {
      ok: true,
      value: {
        output_id: id,
        message: { role: 'assistant', content: prose.content },
        created_at: this.now(),
        register,
        source: prose.source,
        note: prose.note,
        report: result.report,
      },
    };
  }

  async compare(
    caller: UserRecord,
    query: { output_id1?: string; output_id2?: string; interpreted_type_is_technical?: string },
  ): Promise<Outcome<CompareReply>> {
    const missing = (['output_id1', 'output_id2'] as const).filter((key) => !present(query[key]));
    if (missing.length > 0) {
      return refuse(
        400,
        COMPARE_REQUIRED,
        missing.map((key) => ({ field: `/${key}`, message: `${key} is required` })),
      );
    }
    const first = parseId(query.output_id1!, 'output_id1');
    const second = parseId(query.output_id2!, 'output_id2');
    const bad = [first, second].filter((v): v is FieldError => typeof v !== 'number');
    if (bad.length > 0) return refuse(400, `${bad[0]!.message}.`, bad);
    if (first === second) {
      return refuse(400, 'Choose two different outputs to compare.', [
        { field: '/output_id2', message: 'output_id2 must differ from output_id1' },
      ]);
    }
    let technical = true;
    if (query.interpreted_type_is_technical !== undefined) {
      const flag = parseFlag(query.interpreted_type_is_technical);
      if (flag === null) {
        const error = {
          field: '/interpreted_type_is_technical',
          message: 'interpreted_type_is_technical must be true or false',
        };
        return refuse(400, `${error.message}.`, [error]);
      }
      technical = flag;
    }
    const a = await this.subject(caller, first as number, 'compared');
    if (!a.ok) return a;
    const b = await this.subject(caller, second as number, 'compared');
    if (!b.ok) return b;
    if (a.value.job.kind !== b.value.job.kind) {
      return refuse(400, 'Only outputs of the same problem can be compared.', [
        { field: '/output_id2', message: `output ${b.value.job.id} is not a ${a.value.problemName} output` },
      ]);
    }
    const register = registerOf(technical);
    const result = this.engine.compare(a.value, b.value, register);
    const prose = await writeProse(
      this.deps.model,
      result.facts,
      result.markdown,
      register,
      `Write the comparison report of the outputs "${a.value.detail.name}" and "${b.value.detail.name}".`,
    );
    const summary = (s: AnalysisSubject) => ({
      id: s.detail.id,
      name: s.detail.name,
      model: s.detail.trained_model_type,
    });
    return {
      ok: true,
      value: {
        interpreted: result.interpreted,
        configurations: result.configurations,
        metrics: result.metrics,
        curves: result.curves,
        spread: result.spread,
        outputs: [summary(a.value), summary(b.value)],
        message: { role: 'assistant', content: prose.content },
        created_at: this.now(),
        register,
        source: prose.source,
        note: prose.note,
      },
    };
  }

  /** An application's outputs as a run table (any number of runs); owner or admin. */
  async runs(caller: UserRecord, applicationId: number): Promise<Outcome<RunTable>> {
    const found = await this.deps.outputs.runs(caller, applicationId);
    if (!found.ok) return refuse(404, found.detail);
    const kind = found.value[0]?.kind;
    const rules = kind ? (this.engine.ruleSets.find((set) => set.problems.includes(kind)) ?? null) : null;
    return { ok: true, value: runTable(found.value, rules) };
  }

  async graph(caller: UserRecord, request: GraphRequest): Promise<Outcome<GraphReply>> {
    const badImages = request.image_base64
      .map((image, index) => (chartImageBase64(image) === null ? index : -1))
      .filter((index) => index >= 0);
    if (request.image_base64.length === 0 || badImages.length > 0) {
      const at = request.image_base64.length === 0 ? [0] : badImages;
      return refuse(
        400,
        INVALID_BASE64,
        at.map((index) => ({
          field: `/image_base64/${index}`,
          message: `image_base64/${index} must be base64 of at least ${MIN_IMAGE_BASE64} characters after any data:image prefix`,
        })),
      );
    }
    const technical = parseFlag(request.interpreted_type_is_technical);
    if (technical === null) {
      const error = {
        field: '/interpreted_type_is_technical',
        message: 'interpreted_type_is_technical must be true or false',
      };
      return refuse(400, `${error.message}.`, [error]);
    }
    const register = registerOf(technical);
    const asked = request.prompt_message?.trim() ?? '';
    const prompt = asked || this.engine.charts.default_prompt;
    const chartRule = this.engine.chartRule(request.chart ?? asked);
    if (request.output_id !== undefined) {
      const found = await this.subject(caller, request.output_id, 'analyzed');
      if (!found.ok) return found;
      const subject = found.value;
      // an empty prompt is the spec's brain tumor classification analysis: the output's own report
      const result = chartRule
        ? this.engine.chart(subject, chartRule, register)
        : asked === ''
          ? this.engine.analyze(subject, register)
          : null;
      if (result) {
        const prose = await writeProse(
          this.deps.model,
          result.facts,
          result.markdown,
          register,
          chartRule?.prompt ?? prompt,
        );
        return {
          ok: true,
          value: {
            message: { role: 'assistant', content: prose.content },
            created_at: this.now(),
            source: prose.source,
            note: prose.note,
            prompt: chartRule?.prompt ?? prompt,
            chart: chartRule?.title ?? null,
          },
        };
      }
      if (chartRule) {
        return refuse(400, `Output ${subject.detail.id} has no data for the chart '${chartRule.title}'.`, [
          { field: '/chart', message: `output ${subject.detail.id} has no data for '${chartRule.title}'` },
        ]);
      }
    }
    return this.readImage(request, prompt, register);
  }

  /** An image the product did not draw: only a vision model can read it. */
  private async readImage(
    request: GraphRequest,
    prompt: string,
    register: Register,
  ): Promise<Outcome<GraphReply>> {
    const model = this.deps.model;
    if (!model)
      return refuse(400, VISION_MODEL_NEEDED, [{ field: '/image_base64', message: VISION_MODEL_NEEDED }]);
    const context = request.application_type
      ? ` The chart comes from a ${request.application_type} application.`
      : '';
    const style =
      register === 'technical'
        ? 'Write for a data scientist.'
        : 'Write for a reader with no statistics background, in plain words.';
    try {
      const content = await model.complete([
        {
          role: 'system',
          content: `You interpret charts of machine-learning runs. Describe only what the image shows; say so when something cannot be read from it. ${style}`,
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: `${prompt}${context}` },
            ...request.image_base64.map((image) => ({
              type: 'image_url' as const,
              image_url: {
                url: image.startsWith('data:') ? image.trim() : `data:image/png;base64,${image.trim()}`,
              },
            })),
          ],
        },
      ]);
      return {
        ok: true,
        value: {
          message: { role: 'assistant', content },
          created_at: this.now(),
          source: 'vision-model',
          note: "Written by the language model from the image alone; its numbers are not checked against an output's data.",
          prompt,
          chart: null,
        },
      };
    } catch (error) {
      if (!(error instanceof ChatModelError)) throw error;
      return refuse(502, GRAPH_API_ERROR);
    }
  }
}
