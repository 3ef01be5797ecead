import Chart from 'react-apexcharts';

/** Measurement counts of the self-test as a bar chart. */
export function CountsChart({ counts }: { counts: Record<string, number> }) {
  const categories = ['00', '01', '10', '11'];
  return (
    <div data-testid="counts-chart">
      <Chart
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
    </div>
  );
}
