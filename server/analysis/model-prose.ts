// A language model's prose for a report, accepted only when every number it states is one of the facts;
// otherwise the engine's own text stands and the report says why. The notes hold no digits, so a
// report with a note still states only facts.

import { ChatModelError, type ChatModel } from './chat-model';
import type { FactSet } from './facts';
import { ungroundedNumbers } from './grounding';
import type { Register } from './rule-set';

export type ProseSource = 'engine' | 'model';

export interface Prose {
  content: string;
  source: ProseSource;
  /** Why the engine's text is shown although a model is configured; null otherwise. */
  note: string | null;
}

export const NOTE_INVENTED =
  "The language model's text was not used: it stated numbers that are not among this output's facts. This is the rule engine's report.";
export const NOTE_FAILED: Record<ChatModelError['reason'], string> = {
  timeout: "The language model did not answer in time. This is the rule engine's report.",
  status: "The language model answered with an error. This is the rule engine's report.",
  unreachable: "The language model could not be reached. This is the rule engine's report.",
  malformed: "The language model answered without text. This is the rule engine's report.",
};

const REGISTER_STYLE: Record<Register, string> = {
  technical:
    'Write for a data scientist: name each metric, give the numbers, state the caveats (baseline, split, single run).',
  non_technical:
    'Write for a decision maker with no statistics background: plain words, no jargon or metric abbreviations, say what the result means for the decision.',
};

/** The messages that ask for a report written only from `facts`. */
export function proseRequest(facts: FactSet, grounded: string, register: Register, task: string) {
  const factList = [...facts.values()].map((fact) => ({ key: fact.key, text: fact.text }));
  return [
    {
      role: 'system' as const,
      content: [
        'You write short reports about machine-learning runs in Markdown (a title, then sections).',
        'Use ONLY the facts given. Every number you write must appear exactly as written in the text of one fact',
        '(same digits, same rounding, same unit). Do not compute new numbers, do not round, do not number lists.',
        REGISTER_STYLE[register],
      ].join(' '),
    },
    {
      role: 'user' as const,
      content: `${task}\n\nFacts (JSON):\n${JSON.stringify(factList)}\n\nA correct report written from these facts, to improve in style:\n${grounded}`,
    },
  ];
}

/** The model's text when it states only facts, else the engine's with a note. */
export async function writeProse(
  model: ChatModel | null,
  facts: FactSet,
  grounded: string,
  register: Register,
  task: string,
): Promise<Prose> {
  if (!model) return { content: grounded, source: 'engine', note: null };
  let answer: string;
  try {
    answer = await model.complete(proseRequest(facts, grounded, register, task));
  } catch (error) {
    if (!(error instanceof ChatModelError)) throw error;
    return withNote(grounded, NOTE_FAILED[error.reason]);
  }
  if (ungroundedNumbers(answer, facts).length > 0) return withNote(grounded, NOTE_INVENTED);
  return { content: answer, source: 'model', note: null };
}

function withNote(grounded: string, note: string): Prose {
  const [title, ...rest] = grounded.split('\n');
  return { content: [title, '', `> ${note}`, ...rest].join('\n'), source: 'engine', note };
}
