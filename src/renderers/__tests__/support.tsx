// Test support for the renderer tests (jsdom): the repository's schemas through the Node loader,
// the browser APIs React Flow needs, and a harness holding app_data in state like a page does.

import { useState } from 'react';

import { loadRegistry } from '../../engine/node/load-schemas';
import {
  createExampleAppData,
  type AppData,
  type EngineContext,
  type Problem,
  type Registry,
  type TabId,
} from '../../engine';
import { PipelineFlow } from '../pipeline-flow';
import { PipelineValidityNotice } from '../pipeline-notice';
import { SchemaForm } from '../schema-form';
import { useEngineForm } from '../use-engine-form';

let registry: Registry | undefined;
export function testRegistry(): Registry {
  registry ??= loadRegistry();
  return registry;
}

export function allProblems(reg: Registry = testRegistry()): Problem[] {
  return reg.listProblems({ includeUnlisted: true }).map((p) => reg.getProblem(p.id));
}

/** What React Flow reads from the DOM, which jsdom does not provide. */
export function installFlowPolyfills(): void {
  const g = globalThis as Record<string, unknown>;
  g.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
  g.DOMMatrixReadOnly ??= class {
    m22: number;
    constructor(transform?: string) {
      const scale = transform?.match(/scale\(([0-9.]+)\)/)?.[1];
      this.m22 = scale !== undefined ? Number(scale) : 1;
    }
  };
}

export interface HarnessProps {
  problem: Problem;
  tab: TabId | 'both';
  initial?: AppData;
  context?: EngineContext;
  onData?: (appData: AppData) => void;
  onSave?: (pruned: AppData) => void;
  withPipeline?: boolean;
  onFillMissing?: (tabIndex: number) => void;
}

/** A page in miniature: app_data in state, the forms of one or both tabs and the pipeline. */
export function Harness({
  problem,
  tab,
  initial,
  context,
  onData,
  onSave,
  withPipeline,
  onFillMissing,
}: HarnessProps) {
  const [example] = useState(() => createExampleAppData(problem));
  const [ctx] = useState<EngineContext>(() => context ?? example.context);
  const form = useEngineForm(problem, initial ?? example.appData, ctx);
  const change = (next: AppData) => {
    form.onChange(next);
    onData?.(next);
  };
  const tabs: TabId[] = tab === 'both' ? ['dataset', 'model'] : [tab];
  return (
    <div>
      {tabs.map((t) => (
        <SchemaForm
          key={t}
          problem={problem}
          tab={t}
          appData={form.appData}
          context={ctx}
          state={form.state}
          onChange={change}
          submitLabel="Save Changes"
          onSubmit={onSave}
          idPrefix={`t-${t}`}
        />
      ))}
      {withPipeline && (
        <>
          <PipelineValidityNotice
            status={form.state.pipeline}
            onFillMissing={(target) => onFillMissing?.(target.tabIndex)}
          />
          <PipelineFlow
            problem={problem}
            appData={form.appData}
            context={ctx}
            validation={{ valid: form.state.valid, errors: form.state.errors }}
          />
        </>
      )}
    </div>
  );
}

/**
 * A copy of a rendered element for snapshots: the chosen option of each select is marked
 * (React sets it as a property, which serialised HTML does not show).
 */
export function snapshotOf(element: Element): Element {
  const clone = element.cloneNode(true) as Element;
  const original = element.querySelectorAll('select');
  clone.querySelectorAll('select').forEach((select, i) => {
    const value = original[i]?.value;
    select.querySelectorAll('option').forEach((option) => {
      if (option.value === value) option.setAttribute('selected', '');
      else option.removeAttribute('selected');
    });
  });
  return clone;
}

/** The rendered field of a form (its label, control and message), by field name. */
export function fieldOf(container: HTMLElement, tab: TabId, name: string): HTMLElement {
  const el = container.querySelector<HTMLElement>(`form[data-tab="${tab}"] [data-field="${name}"]`);
  if (!el) throw new Error(`no field ${name} on the ${tab} tab`);
  return el;
}

/** The messages shown inside an element. */
export function messagesIn(el: HTMLElement): string[] {
  return [...el.querySelectorAll('.qs-error')].map((e) => e.textContent ?? '');
}
