import type { ReactNode } from 'react';

/**
 * A table of items, a row each (`children`), under a heading per column; the caption is for
 * screen readers. On a narrow screen the rows stack, each cell showing its `data-label`.
 */
export function ListTable({
  caption,
  columns,
  testId,
  children,
}: {
  caption: string;
  columns: ReactNode[];
  testId?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid={testId}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th key={index} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
