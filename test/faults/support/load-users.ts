import type { FakeChatPlatform, SeededGuild } from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { performance } from 'node:perf_hooks';
import { cookiePair, type GatewayResponse, type LoggedIn, requestGateway } from '../../support/gateway-stack';

/** The platform user of virtual user `index`: an 18-digit snowflake of its own. */
export function loadUserPlatformId(index: number): string {
  return `31${String(index).padStart(16, '0')}`;
}

/**
 * A small guild owned by the virtual user (so MANAGE_GUILD comes from ownership): two roles, a
 * private category with one channel, one public channel. Enough for every step of a restore to
 * have something to compare, small enough to seed 200 of them at once.
 */
export function seedLoadGuild(platform: FakeChatPlatform, index: number, ownerId: string): SeededGuild {
  return platform.seedGuild({
    name: `Load ${index}`,
    owner: { id: ownerId, username: `load-${index}` },
    settings: { afk_timeout: 900, system_channel: 'general' },
    roles: [
      { name: 'Member', permissions: P.SendMessages | P.ViewChannel, color: 0x3498db },
      { name: 'Moderator', permissions: P.ManageMessages | P.KickMembers, color: 0x2ecc71 },
    ],
    categories: [
      {
        name: 'Staff',
        overwrites: [
          { role: '@everyone', deny: P.ViewChannel },
          { role: 'Moderator', allow: P.ViewChannel },
        ],
        channels: [{ name: 'mod-chat', topic: 'Staff only' }],
      },
    ],
    channels: [{ name: 'general', topic: 'Anything goes' }],
  });
}

/**
 * Small damage a restore repairs (a role's colour, a channel's topic), made directly in the fake's
 * state: it costs none of the bot's platform rate limit, which the service itself needs.
 */
export function damageLoadGuild(platform: FakeChatPlatform, seeded: SeededGuild, mark: number): void {
  platform.mutate(seeded.guildId, (guild) => {
    const moderator = guild.roles.find((role) => role.id === seeded.roles.Moderator);
    if (moderator) moderator.color = 0x100000 + (mark % 0xeffff);
    const general = guild.channels.find((channel) => channel.id === seeded.channels.general);
    if (general) general.topic = `defaced ${mark}`;
  });
}

/** Runs one task at a time, in call order. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/**
 * `loginThroughGateway` for many users at once. The fake platform has one signed-in "browser"
 * user, so signing in and the consent page are taken one user at a time (under `consent`); the
 * gateway's /auth/login and /auth/callback (state in Redis, code exchange, user row, session) run
 * concurrently.
 */
export async function loginConcurrently(
  gatewayUrl: string,
  platform: FakeChatPlatform,
  platformUserId: string,
  consent: Mutex,
): Promise<LoggedIn> {
  const start = await fetch(`${gatewayUrl}/auth/login`, { redirect: 'manual' });
  if (start.status !== 302) throw new Error(`/auth/login answered ${start.status}`);
  const stateCookie = cookiePair(start.headers, 'oauth_state');
  const callback = await consent.run(async () => {
    platform.loginAs(platformUserId);
    const authorized = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const location = authorized.headers.get('location');
    if (authorized.status !== 302 || !location) throw new Error(`authorize answered ${authorized.status}`);
    return location;
  });
  const done = await fetch(callback, {
    redirect: 'manual',
    headers: { cookie: stateCookie, accept: 'application/json' },
  });
  const body = (await done.json()) as { token: string; user: LoggedIn['user'] };
  if (done.status !== 200) throw new Error(`callback answered ${done.status}: ${JSON.stringify(body)}`);
  if (body.user.platform_user_id !== platformUserId) {
    throw new Error(`logged in as ${body.user.platform_user_id}, wanted ${platformUserId}`);
  }
  return { token: body.token, cookie: cookiePair(done.headers, 'sid'), user: body.user };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** How an answer counts: as intended, a designed refusal (409, 429), or an error. */
export type Verdict = 'ok' | 'designed' | 'error';

/** An answer that was not as designed, with what the service said. */
export interface LoadError {
  op: string;
  status: number;
  code: string;
  detail: string;
  at: number;
}

interface OpStats {
  latencies: number[];
  ok: number;
  designed: number;
  errors: number;
  /** `409 ErrPlanLimitExceeded` -> count, designed and error answers alike. */
  answers: Map<string, number>;
}

/** Designed 409 codes per operation; a 429 from the gateway's limits is designed everywhere. */
export type Designed409 = Readonly<Record<string, readonly string[]>>;

/**
 * Every request of a run: operation, status, latency. Errors keep their status, problem code and
 * detail; 5xx, 4xx other than the designed ones, and answers that never came (status 0).
 */
export class LoadRecorder {
  private readonly stats = new Map<string, OpStats>();
  readonly errors: LoadError[] = [];

  constructor(private readonly designed409: Designed409) {}

  /** One request to a gateway at `url`, timed from send to the last byte of the answer. */
  async request(
    url: string,
    op: string,
    method: string,
    path: string,
    options: { token: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<GatewayResponse & { verdict: Verdict }> {
    const started = performance.now();
    let response: GatewayResponse;
    try {
      response = await requestGateway(url, method, path, options);
    } catch (error) {
      response = { status: 0, body: { code: 'network', detail: String(error) }, headers: new Headers() };
    }
    const verdict = this.record(op, response, performance.now() - started);
    return { ...response, verdict };
  }

  record(op: string, response: Pick<GatewayResponse, 'status' | 'body'>, ms: number): Verdict {
    let stats = this.stats.get(op);
    if (!stats) {
      stats = { latencies: [], ok: 0, designed: 0, errors: 0, answers: new Map() };
      this.stats.set(op, stats);
    }
    stats.latencies.push(ms);
    const code = typeof response.body.code === 'string' ? response.body.code : '';
    const verdict = this.classify(op, response.status, code);
    stats[verdict === 'ok' ? 'ok' : verdict === 'designed' ? 'designed' : 'errors']++;
    if (response.status >= 400 || response.status === 0) {
      const key = `${response.status} ${code}`.trim();
      stats.answers.set(key, (stats.answers.get(key) ?? 0) + 1);
    }
    if (verdict === 'error') {
      const detail = typeof response.body.detail === 'string' ? response.body.detail : '';
      this.errors.push({ op, status: response.status, code, detail: detail.slice(0, 200), at: Date.now() });
    }
    return verdict;
  }

  /** An outcome that is not an HTTP answer (a restore that did not complete, say), as an error. */
  recordFailure(op: string, code: string, detail: string): void {
    this.errors.push({ op, status: -1, code, detail, at: Date.now() });
  }

  private classify(op: string, status: number, code: string): Verdict {
    if (status >= 200 && status < 400) return 'ok';
    if (status === 429) return 'designed';
    if (status === 409 && (this.designed409[op] ?? []).includes(code)) return 'designed';
    return 'error';
  }

  get total(): number {
    let total = 0;
    for (const stats of this.stats.values()) total += stats.latencies.length;
    return total;
  }

  get designedOrOk(): number {
    let count = 0;
    for (const stats of this.stats.values()) count += stats.ok + stats.designed;
    return count;
  }

  /** Answers >= 400 by status and code over every operation, e.g. `409 ErrPlanLimitExceeded` -> 812. */
  answersByCode(): Map<string, number> {
    const all = new Map<string, number>();
    for (const stats of this.stats.values()) {
      for (const [key, count] of stats.answers) all.set(key, (all.get(key) ?? 0) + count);
    }
    return all;
  }

  /** p99 per operation, for the one-line notes of the outcome table. */
  p99s(): string {
    return [...this.stats.entries()]
      .map(([op, stats]) => `${op} ${Math.round(percentile(sorted(stats.latencies), 99))}`)
      .join(', ');
  }

  /** One row per operation: count, latencies (ms), answers as designed and errors. */
  table(title: string, seconds: number): string {
    const header = [
      'operation',
      'count',
      'p50',
      'p95',
      'p99',
      'max',
      'ok',
      '409/429',
      'errors',
      'non-2xx answers',
    ];
    const rows = [...this.stats.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([op, stats]) => {
        const latencies = sorted(stats.latencies);
        const ms = (p: number) => percentile(latencies, p).toFixed(1);
        return [
          op,
          String(latencies.length),
          ms(50),
          ms(95),
          ms(99),
          latencies[latencies.length - 1].toFixed(1),
          String(stats.ok),
          String(stats.designed),
          String(stats.errors),
          [...stats.answers.entries()].map(([key, count]) => `${key} x${count}`).join(', '),
        ];
      });
    const all = sorted([...this.stats.values()].flatMap((stats) => stats.latencies));
    const errors = [...this.stats.values()].reduce((sum, stats) => sum + stats.errors, 0);
    const designed = [...this.stats.values()].reduce((sum, stats) => sum + stats.designed, 0);
    rows.push([
      'all',
      String(all.length),
      percentile(all, 50).toFixed(1),
      percentile(all, 95).toFixed(1),
      percentile(all, 99).toFixed(1),
      (all[all.length - 1] ?? 0).toFixed(1),
      String(all.length - designed - errors),
      String(designed),
      String(errors),
      `${(all.length / seconds).toFixed(1)} req/s over ${seconds.toFixed(1)} s`,
    ]);
    const widths = header.map((name, index) =>
      Math.max(name.length, ...rows.map((row) => row[index].length)),
    );
    const line = (cells: string[]) =>
      cells
        .map((cell, index) =>
          index === 0 || index === cells.length - 1
            ? cell.padEnd(widths[index])
            : cell.padStart(widths[index]),
        )
        .join('  ')
        .trimEnd();
    return [
      title,
      line(header),
      widths.map((width) => '-'.repeat(width)).join('  '),
      ...rows.slice(0, -1).map(line),
      widths.map((width) => '-'.repeat(width)).join('  '),
      line(rows[rows.length - 1]),
    ].join('\n');
  }
}

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Runs `task` over `items` with at most `concurrency` of them at once. */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

/**
 * Evidence from an app's JSON log: its error lines (pino level 50 and up) and lines matching
 * `pattern`, at most `max` of each, as time, level, message, error and the request's method and url.
 */
export function logEvidence(name: string, output: string, pattern?: RegExp, max = 5): string[] {
  const lines = output.split('\n');
  const errors = lines.filter((line) => /"level":(5|6)\d/.test(line));
  const matching = pattern ? lines.filter((line) => pattern.test(line)) : [];
  return [
    ...(errors.length ? [`  ${name}: ${errors.length} error lines`] : []),
    ...errors.slice(0, max).map((line) => `    ${summariseLogLine(line)}`),
    ...(matching.length ? [`  ${name}: ${matching.length} lines matching ${String(pattern)}`] : []),
    ...matching.slice(0, max).map((line) => `    ${summariseLogLine(line)}`),
  ];
}

function summariseLogLine(line: string): string {
  try {
    const entry = JSON.parse(line) as {
      time?: number;
      level?: number;
      msg?: string;
      err?: unknown;
      req?: { method?: string; url?: string };
    };
    const err =
      typeof entry.err === 'string'
        ? entry.err
        : entry.err && typeof entry.err === 'object'
          ? JSON.stringify(entry.err).slice(0, 300)
          : '';
    const time = entry.time ? new Date(entry.time).toISOString().slice(11, 23) : '';
    return `${time} ${entry.level} ${entry.req?.method ?? ''} ${entry.req?.url ?? ''} ${entry.msg ?? ''} ${err}`;
  } catch {
    return line.slice(0, 300);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A uniform random number in [min, max). */
export const between = (min: number, max: number) => min + Math.random() * (max - min);
