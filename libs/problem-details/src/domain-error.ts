/**
 * What names a problem on the wire: its `code` (the contract: it survives Kafka, Temporal and HTTP
 * hops where `instanceof` does not), its HTTP status and its title.
 */
export interface ProblemKind {
  readonly code: string;
  readonly status: number;
  readonly title: string;
}

/** A failure the caller can act on, thrown as one of the named problems of an area's `*.errors.ts`. */
export class DomainError extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;

  constructor(
    kind: ProblemKind,
    detail?: string,
    /** Extra members of the problem body, e.g. `existing_job` or `required_feature`. */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail ?? kind.title);
    this.code = kind.code;
    this.status = kind.status;
    this.title = kind.title;
    this.name = kind.code;
  }
}

/** What varies between two answers of one problem: the sentence for the user and extra members. */
export interface ProblemParts {
  detail?: string;
  extensions?: Record<string, unknown>;
}

/** The arguments of a problem whose detail is written where it is thrown. */
export type DetailArgs = [detail?: string, extensions?: Record<string, unknown>];

/**
 * A named problem: its code, status and title, callable with only what varies to build the error
 * to throw. `ProblemAnswers` takes the same value, so a route's documented codes name it too.
 */
export type Problem<A extends unknown[] = DetailArgs> = ProblemKind & {
  (...args: A): DomainError;
  /** Whether `error` carries this problem's code (a `DomainError`, or one that crossed a hop). */
  is(error: unknown): boolean;
};

const detailAndExtensions = (detail?: string, extensions?: Record<string, unknown>): ProblemParts => ({
  detail,
  extensions,
});

/**
 * Defines a problem. Without `parts`, the factory takes the detail and extra members; with it, the
 * factory takes what `parts` takes (nothing, for a problem whose words never change).
 */
export function defineProblem(kind: ProblemKind): Problem;
export function defineProblem<A extends unknown[]>(
  kind: ProblemKind,
  parts: (...args: A) => ProblemParts,
): Problem<A>;
export function defineProblem(
  kind: ProblemKind,
  parts: (...args: never[]) => ProblemParts = detailAndExtensions,
): Problem<unknown[]> {
  const { code, status, title } = kind;
  const build = (...args: unknown[]): DomainError => {
    const { detail, extensions } = (parts as (...args: unknown[]) => ProblemParts)(...args);
    return new DomainError(kind, detail, extensions);
  };
  const is = (error: unknown): boolean =>
    typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
  return Object.assign(build, { code, status, title, is });
}
