import { lazy, Suspense, type ComponentProps } from 'react';
import type ApexChart from 'react-apexcharts';

// The chart library is about 225 kB compressed: its own chunk, fetched when a chart is first drawn
// (landing demo, workspace outputs, analytics, diagnostics), so a page shows without waiting for it.
const Chart = lazy(() => import('react-apexcharts'));

/** An ApexCharts chart loaded on first use, with a placeholder of the chart's height meanwhile. */
export function LazyChart(props: ComponentProps<typeof ApexChart> & { height: number }) {
  return (
    <Suspense
      fallback={
        <div
          className="chart-placeholder muted"
          style={{ height: props.height }}
          data-testid="chart-placeholder"
        >
          Loading chart…
        </div>
      }
    >
      <Chart {...props} />
    </Suspense>
  );
}
