/** The spec's output status badge: Completed green, Failed red, Manual Stop blue, anything else Ongoing. */
export function StatusBadge({ status }: { status: string }) {
  const known: Record<string, string> = {
    Completed: 'completed',
    Failed: 'failed',
    'Manual Stop': 'stopped',
  };
  const tone = known[status] ?? 'ongoing';
  return (
    <span className={`status-badge ${tone}`} data-testid="job-status" data-status={status}>
      {tone === 'ongoing' && <span className="spinner" aria-hidden="true" />}
      {tone === 'ongoing' ? `Ongoing (${status})` : status}
    </span>
  );
}
