import { useState } from 'react';
import type { ChartSpec } from '../../generated/worker-contract';
import { bandsFor, seedMatricesFor, seedMatrixSpec, type RepeatsCurves } from './chart-bands';
import { ChartSpecView } from './chart-spec-view';

/**
 * One chart of an output that may be repeated over seeds: a curve the worker recorded per seed is drawn
 * as the mean with its band; a confusion matrix summed over the seeds can be switched to one seed's
 * (a user comparing seeds sees the summed one first, its title saying so, then each seed's). A single
 * run's chart is drawn as it is.
 */
export function RepeatedChartView({
  spec,
  repeats,
}: {
  spec: ChartSpec;
  repeats: RepeatsCurves | null | undefined;
}) {
  const [seed, setSeed] = useState<number | null>(null);
  const perSeed = seedMatricesFor(spec, repeats);
  if (!perSeed) return <ChartSpecView spec={spec} bands={bandsFor(spec, repeats)} />;
  const index = seed === null ? -1 : perSeed.seeds.indexOf(seed);
  const shown = index >= 0 ? seedMatrixSpec(spec, perSeed.seeds[index], perSeed.matrices[index]) : spec;
  return (
    // A fresh chart per seed (keyed by its title): ApexCharts drew an updated heatmap's cells shrunken.
    <ChartSpecView key={shown.title} spec={shown}>
      <label className="chart-seed-select no-print">
        Show{' '}
        <select
          value={index >= 0 ? String(perSeed.seeds[index]) : 'all'}
          onChange={(event) => setSeed(event.target.value === 'all' ? null : Number(event.target.value))}
        >
          <option value="all">All {perSeed.seeds.length} seeds (summed)</option>
          {perSeed.seeds.map((s) => (
            <option key={s} value={String(s)}>
              Seed {s}
            </option>
          ))}
        </select>
      </label>
    </ChartSpecView>
  );
}
