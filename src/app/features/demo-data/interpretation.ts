import type { DemoOutput } from './api/get-demo-compare';
import { outputTitle } from './output-title';

const percent = (value: number) => Math.round(value * 100);

/** Plain-language lines for one output's metrics (the non-technical view); known metrics only. */
export function plainLines(output: DemoOutput): string[] {
  const metrics = output.metrics ?? {};
  const lines: string[] = [];
  const model = output.model_type ? `The ${output.model_type.toLowerCase()} model` : 'The model';
  if (typeof metrics.accuracy === 'number') {
    lines.push(`${model} got ${percent(metrics.accuracy)} of every 100 test cases right.`);
  }
  if (typeof metrics.precision === 'number') {
    lines.push(`When it raised an alarm, it was right ${percent(metrics.precision)} times out of 100.`);
  }
  if (typeof metrics.recall === 'number') {
    lines.push(`Of the cases it should have caught, it caught ${percent(metrics.recall)} out of 100.`);
  }
  for (const key of ['rmse', 'mae'] as const) {
    if (typeof metrics[key] === 'number') {
      lines.push(
        `${model}'s predictions were off by about ${metrics[key].toPrecision(3)} on average (${key.toUpperCase()}).`,
      );
      break;
    }
  }
  if (lines.length === 0) lines.push(`${model}'s results are listed in the technical view.`);
  return lines;
}

/** Which of two or more outputs did better on accuracy, in a sentence (none without accuracies). */
export function verdict(outputs: DemoOutput[]): string | null {
  const scored = outputs.filter((output) => typeof output.metrics?.accuracy === 'number');
  if (scored.length < 2) return null;
  const best = [...scored].sort((a, b) => b.metrics!.accuracy! - a.metrics!.accuracy!);
  if (best[0]!.metrics!.accuracy === best[1]!.metrics!.accuracy)
    return 'Both models did equally well on accuracy.';
  return `${outputTitle(best[0]!)} was the more accurate on this example.`;
}

/** The technical view's rows: every metric of the output, three significant digits. */
export function metricRows(output: DemoOutput): [string, string][] {
  return Object.entries(output.metrics ?? {})
    .filter(([, value]) => typeof value === 'number')
    .map(([name, value]) => [name, value.toPrecision(3)]);
}
