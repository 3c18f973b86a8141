export interface FailureRule {
  /** Any method when absent. */
  method?: string;
  /**
   * The path after `/api/v10` (without the query), or `/oauth2/authorize` for the OAuth2 consent
   * page: equal to a string, or tested by a RegExp.
   */
  path: string | RegExp;
  status: number;
  /** The platform's JSON error code; 0 when absent. */
  code?: number;
  message?: string;
  /** How many matching requests fail; default 1. */
  times?: number;
  /** For a 429: the `retry_after` (and `Retry-After`) to send, in seconds; default 1. */
  retryAfterSeconds?: number;
  /** Holds the answer this long first (a slow platform, for timeouts). */
  delayMs?: number;
}

export interface InjectedFailure {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  delayMs: number;
}

const STATUS_MESSAGES: Record<number, string> = {
  400: '400: Bad Request',
  401: '401: Unauthorized',
  403: '403: Forbidden',
  404: '404: Not Found',
  500: '500: Internal Server Error',
  502: '502: Bad Gateway',
  503: '503: Service Unavailable',
};

/** Failures a test arranges ahead: each matching request consumes one, in the order they were added. */
export class FailureInjector {
  private rules: { rule: FailureRule; remaining: number }[] = [];

  add(rule: FailureRule): void {
    this.rules.push({ rule, remaining: rule.times ?? 1 });
  }

  take(method: string, path: string): InjectedFailure | undefined {
    const entry = this.rules.find(({ rule }) => matches(rule, method, path));
    if (!entry) return undefined;
    entry.remaining--;
    if (entry.remaining <= 0) this.rules = this.rules.filter((candidate) => candidate !== entry);
    return render(entry.rule);
  }

  clear(): void {
    this.rules = [];
  }
}

function matches(rule: FailureRule, method: string, path: string): boolean {
  if (rule.method !== undefined && rule.method.toUpperCase() !== method) return false;
  if (typeof rule.path === 'string') return rule.path === path;
  rule.path.lastIndex = 0; // a /g or /y pattern would otherwise remember the previous test
  return rule.path.test(path);
}

function render(rule: FailureRule): InjectedFailure {
  const delayMs = rule.delayMs ?? 0;
  if (rule.status === 429) {
    const retryAfter = rule.retryAfterSeconds ?? 1;
    return {
      status: 429,
      // The platform's Retry-After is whole seconds, rounded up; the body keeps the fraction.
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfter))), 'X-RateLimit-Scope': 'user' },
      body: {
        message: rule.message ?? 'You are being rate limited.',
        retry_after: retryAfter,
        global: false,
      },
      delayMs,
    };
  }
  return {
    status: rule.status,
    headers: {},
    body: { message: rule.message ?? STATUS_MESSAGES[rule.status] ?? `${rule.status}`, code: rule.code ?? 0 },
    delayMs,
  };
}
