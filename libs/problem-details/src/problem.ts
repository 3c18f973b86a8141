/** RFC 9457 problem details, with the members the design adds (`code`, `request_id`). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string | null;
  instance?: string;
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
export const PROBLEM_TYPE_BASE = 'https://guildkeeper.dev/problems/';

export function problemType(code: string): string {
  return `${PROBLEM_TYPE_BASE}${code}`;
}
