import type { ReactNode } from 'react';

/** A table's one row that says why there are no rows to show (loading, none yet), across all columns. */
export function TableMessageRow({ columns, children }: { columns: number; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={columns} className="empty-cell">
        {children}
      </td>
    </tr>
  );
}
