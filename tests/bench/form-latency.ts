// Form latency: the time from a field change to the re-validated, re-rendered form, on the largest
// form of any problem (most fields, sub-fields included, over every choice of the selects that
// switch branches). The form is the real renderer (SchemaForm over the engine) in jsdom; each
// change is a DOM change event on a number input or a select, timed until React has committed
// (engine setFieldValue + getFormState + rjsf render). Prints median and p95 in milliseconds.
//
// Run: npm run bench:form  (or npx tsx tests/bench/form-latency.ts [changes])
// Target: median under 16 ms, p95 under 50 ms. NODE_ENV=production measures React's production build.

import { performance } from 'node:perf_hooks';

const TARGET_MEDIAN_MS = 16;
const TARGET_P95_MS = 50;
const WARM_UP = 30;

/** The part of jsdom used here (the package ships no types and @types/jsdom is not installed). */
interface JsdomModule {
  JSDOM: new (html: string, options: Record<string, unknown>) => { window: Window & typeof globalThis };
}

/** jsdom's window as the global environment React DOM and the widgets expect. */
async function installDom(): Promise<void> {
  const specifier: string = 'jsdom';
  const { JSDOM } = (await import(specifier)) as JsdomModule;
  const dom = new JSDOM('<!doctype html><html><body></body></html>', {
    url: 'http://localhost/',
    pretendToBeVisual: true,
  });
  const g = globalThis as Record<string, unknown>;
  const win = dom.window as unknown as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(win)) {
    if (key in g) continue;
    try {
      g[key] = win[key];
    } catch {
      // read-only globals of Node (e.g. navigator in newer versions) stay as they are
    }
  }
  g.window = dom.window;
  g.document = dom.window.document;
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)]!;
}

async function main(): Promise<void> {
  await installDom();
  const changes = Number(process.argv[2] ?? 200);
  const { createElement, useState } = await import('react');
  const { createRoot } = await import('react-dom/client');
  const { flushSync } = await import('react-dom');
  const { fireEvent } = await import('@testing-library/dom');
  const { loadRegistry } = await import('../../src/engine/node/load-schemas');
  const engine = await import('../../src/engine');
  const { SchemaForm } = await import('../../src/renderers/schema-form');
  const { useEngineForm } = await import('../../src/renderers/use-engine-form');

  type AppData = import('../../src/engine').AppData;
  type Problem = import('../../src/engine').Problem;
  type TabId = import('../../src/engine').TabId;
  type EngineContext = import('../../src/engine').EngineContext;

  // Names that drive a condition (model type and the like): changing them changes the form.
  const drivers = (problem: Problem): Set<string> => {
    const out = new Set<string>();
    for (const key of problem.formKeys) {
      for (const part of problem.forms[key]!.schema.allOf ?? []) {
        const test = (part as { if?: { properties?: Record<string, unknown> } }).if;
        for (const name of Object.keys(test?.properties ?? {})) out.add(`/${key}/${name}`);
      }
    }
    return out;
  };

  const fieldCount = (problem: Problem, tab: TabId, appData: AppData, context: EngineContext) =>
    engine
      .getTabSections(problem, tab, appData, context)
      .filter((s) => s.visible)
      .flatMap((s) => s.fields)
      .reduce((n, f) => n + 1 + (f.subfields?.filter((x) => x.active).length ?? 0), 0);

  // The largest form: every problem, both tabs, the example and each branch of its drivers.
  const registry = loadRegistry();
  let best:
    { problem: Problem; tab: TabId; appData: AppData; context: EngineContext; fields: number } | undefined;
  for (const problem of registry.problems) {
    const { appData, context } = engine.createExampleAppData(problem);
    const variants: AppData[] = [appData];
    for (const path of drivers(problem)) {
      const [form, name] = path.slice(1).split('/') as [keyof AppData, string];
      const schema = engine.lookupField(problem.forms[form as 'model_configurations']!.schema, [name]);
      for (const value of (schema?.schema.enum ?? []) as unknown[]) {
        variants.push(engine.setFieldValue(problem, appData, path, value, context));
      }
    }
    for (const tab of ['dataset', 'model'] as const) {
      for (const variant of variants) {
        const fields = fieldCount(problem, tab, variant, context);
        if (!best || fields > best.fields) best = { problem, tab, appData: variant, context, fields };
      }
    }
  }
  if (!best) throw new Error('no problems');
  const { problem, tab, appData, context } = best;
  const driverPaths = drivers(problem);

  function Page() {
    const [ctx] = useState(context);
    const form = useEngineForm(problem, appData, ctx);
    return createElement(SchemaForm, {
      problem,
      tab,
      appData: form.appData,
      context: ctx,
      state: form.state,
      onChange: form.onChange,
      submitLabel: 'Save Changes',
    });
  }

  const host = document.createElement('div');
  document.body.appendChild(host);
  const root = createRoot(host);
  const mountStart = performance.now();
  flushSync(() => root.render(createElement(Page)));
  const mountMs = performance.now() - mountStart;

  // The controls to change: number inputs and selects whose field does not switch branches.
  const formKeys = engine.formsOfTab(problem, tab);
  const controls = [
    ...host.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input[type=number], select'),
  ]
    .filter((el) => !el.disabled)
    .filter((el) => {
      const field = el.closest<HTMLElement>('[data-field]')?.dataset.field;
      return !formKeys.some((k) => driverPaths.has(`/${k}/${field}`));
    });
  if (controls.length === 0) throw new Error('no controls to change');

  const valuesFor = (el: HTMLInputElement | HTMLSelectElement): string[] => {
    if (el instanceof HTMLSelectElement) return [...el.options].map((o) => o.value);
    const current = el.value === '' ? 1 : Number(el.value);
    // valid values and values that break a limit, so messages come and go
    return [String(current), String(current + 1), '0', '100000', String(current)];
  };

  const samples: number[] = [];
  let errorsShown = 0;
  for (let i = 0; i < changes + WARM_UP; i++) {
    const el = controls[i % controls.length]!;
    if (!el.isConnected) continue;
    const values = valuesFor(el);
    const value = values[Math.floor(i / controls.length) % values.length]!;
    const start = performance.now();
    // flushSync: React renders and commits before it returns (in both React builds).
    flushSync(() => {
      fireEvent.change(el, { target: { value } });
    });
    const elapsed = performance.now() - start;
    if (el instanceof HTMLInputElement && el.value !== value)
      throw new Error(`input not re-rendered (${value})`);
    errorsShown += host.querySelectorAll('.qs-error').length > 0 ? 1 : 0;
    if (i >= WARM_UP) samples.push(elapsed);
  }
  root.unmount();

  samples.sort((a, b) => a - b);
  const median = percentile(samples, 50);
  const p95 = percentile(samples, 95);
  const ok = median < TARGET_MEDIAN_MS && p95 < TARGET_P95_MS;
  console.log(
    `form-latency: problem=${problem.id} tab=${tab} fields=${best.fields} controls=${controls.length} ` +
      `react=${process.env.NODE_ENV === 'production' ? 'production' : 'development'} mount=${mountMs.toFixed(1)}ms ` +
      `changes=${samples.length} (with messages shown: ${errorsShown}) ` +
      `median=${median.toFixed(2)}ms p95=${p95.toFixed(2)}ms max=${samples.at(-1)!.toFixed(2)}ms ` +
      `target median<${TARGET_MEDIAN_MS}ms p95<${TARGET_P95_MS}ms: ${ok ? 'met' : 'NOT met'}`,
  );
  if (!ok) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
