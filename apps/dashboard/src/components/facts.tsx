import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ProblemMessage } from '../app/layout';

/** One entry of a `<dl className="facts">` list: a label and what it says. */
export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/**
 * A fact read from one query: the API's problem when the query failed, `…` while it loads, and
 * what `children` makes of the data once it is there.
 */
export function QueryFact<T>({
  label,
  query,
  children,
}: {
  label: string;
  query: UseQueryResult<T>;
  children: (data: T) => ReactNode;
}) {
  return (
    <Fact label={label}>
      {query.isError ? <ProblemMessage error={query.error} /> : query.data ? children(query.data) : '…'}
    </Fact>
  );
}
