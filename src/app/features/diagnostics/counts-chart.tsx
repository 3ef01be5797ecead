import { LazyChart } from '../../components/lazy-chart';

/**
 * Measurement counts of the self-test as a bar chart (loaded on first use), with the counts also as
 * text: readable before the chart library has arrived, and to a screen reader.
 */
export function CountsChart({ counts }: { counts: Record<string, number> }) {
  const categories = ['00', '01', '10', '11'];
  return (
    <figure data-testid="counts-chart">
      <figcaption className="muted">
        Counts: {categories.map((c) => `${c} → ${counts[c] ?? 0}`).join(', ')}
      </figcaption>
      <LazyChart
        type="bar"
        height={260}
        series={[{ name: 'Counts', data: categories.map((c) => counts[c] ?? 0) }]}
        options={{
          chart: { toolbar: { show: false }, animations: { enabled: false } },
          xaxis: { categories, title: { text: 'Measured bitstring' } },
          yaxis: { title: { text: 'Shots' } },
          colors: ['#4f46e5'],
          dataLabels: { enabled: true },
          plotOptions: { bar: { borderRadius: 4, columnWidth: '45%' } },
        }}
      />
    </figure>
  );
}
