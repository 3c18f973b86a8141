import { type InternalIdentity, INTERNAL_TOKEN_HEADER, type ServiceName } from '@lib/contracts';
import { TOPIC_PARTITIONS } from '@lib/messaging';
import type { KafkaClient } from '@lib/messaging';
import { type Admin, AssignerProtocol, Partitioners } from 'kafkajs';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AppProcess, freePort, startApp } from './app-process';
import { signInternalToken } from './internal-tokens';
import { waitFor } from './wait';

/**
 * Several processes of one app on the same database, brokers and task queue, as a deployment with
 * `replicas: n` runs them. `envFor(i)` gives each its own variables on top of `shared` (e.g. which
 * proxy it talks to); all start at once, so their timers and group joins race as in production.
 */
export class ReplicaSet {
  readonly replicas: AppProcess[] = [];

  private constructor(readonly app: string) {}

  static async start(
    app: ServiceName,
    count: number,
    envFor: (index: number) => Record<string, string | undefined>,
    { ports, readyTimeoutMs = 90_000 }: { ports?: number[]; readyTimeoutMs?: number } = {},
  ): Promise<ReplicaSet> {
    const set = new ReplicaSet(app);
    const started = await Promise.allSettled(
      Array.from({ length: count }, async (_, index) =>
        startApp(app, envFor(index), { port: ports?.[index] ?? (await freePort()), readyTimeoutMs }),
      ),
    );
    for (const result of started) if (result.status === 'fulfilled') set.replicas.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) {
      await set.stop();
      throw failed.reason;
    }
    return set;
  }

  get size(): number {
    return this.replicas.length;
  }

  at(index: number): AppProcess {
    return this.replicas[index];
  }

  async stop(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.stop()));
  }
}

/** One request a RecordingProxy passed on. */
export interface ProxiedRequest {
  method: string;
  /** As the client sent it, query included. */
  url: string;
  body: string;
  status: number;
  at: number;
}

/**
 * A transparent HTTP proxy in front of a fake (platform, provider) or a service, recording every
 * request. One per replica tells which replica made which call: the fakes themselves cannot.
 */
export class RecordingProxy {
  private server?: Server;
  private readonly log: ProxiedRequest[] = [];
  private target?: () => URL;
  private gate?: { matches: (request: ProxiedRequest) => boolean; open: Promise<void>; onMatch?: () => void };

  constructor(readonly name: string) {}

  /**
   * Holds every request that `matches` until `open` settles, then lets everything through again;
   * `onMatch` hears each held request as it arrives. Makes replicas overlap in time where their own
   * timers would not (keep the hold below the client's time-out).
   */
  holdUntil(matches: (request: ProxiedRequest) => boolean, open: Promise<void>, onMatch?: () => void): void {
    const gate = { matches, open, onMatch };
    this.gate = gate;
    void open.then(() => {
      if (this.gate === gate) this.gate = undefined;
    });
  }

  /**
   * Starts forwarding to `target` (a base URL, or a function giving it when the first request
   * comes, for a target that listens later); returns the proxy's base URL.
   */
  async start(target: string | (() => string)): Promise<string> {
    this.target = () => new URL(typeof target === 'string' ? target : target());
    const server = createServer((req, res) => void this.forward(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  requests(filter: (request: ProxiedRequest) => boolean = () => true): ProxiedRequest[] {
    return this.log.filter(filter);
  }

  /** How many requests were recorded so far: a mark to count from later. */
  mark(): number {
    return this.log.length;
  }

  since(mark: number): ProxiedRequest[] {
    return this.log.slice(mark);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const target = this.target!();
    const entry: ProxiedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      body: body.toString('utf8'),
      status: 0,
      at: Date.now(),
    };
    this.log.push(entry);
    const gate = this.gate;
    if (gate?.matches(entry)) {
      gate.onMatch?.();
      await gate.open;
    }
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        entry.status = answer.statusCode ?? 0;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      entry.status = 502;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
    upstream.end(body);
  }
}

/** The JSON body of a proxied request, or undefined when it has none or it is not JSON. */
export function jsonBody(request: ProxiedRequest): Record<string, unknown> | undefined {
  try {
    return request.body ? (JSON.parse(request.body) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A request to a service as the gateway (or another service) would make it, with the internal token. */
export class InternalCaller {
  async call(
    app: AppProcess,
    method: string,
    path: string,
    identity: InternalIdentity | null,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const headers: Record<string, string> = {};
    if (identity) headers[INTERNAL_TOKEN_HEADER] = await signInternalToken(identity, app.name);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      parsed = { text };
    }
    return { status: response.status, body: parsed };
  }
}

/** One sample of a Prometheus text exposition: `name{labels} value`. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Every sample an app's `/metrics` exposes now. */
export async function scrapeMetrics(app: AppProcess): Promise<MetricSample[]> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of `name` over the samples whose labels include `labels`. */
export function metricSum(
  samples: readonly MetricSample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  return samples
    .filter(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** A member of a consumer group and the partitions the group's leader gave it. */
export interface GroupMember {
  memberId: string;
  clientId: string;
  partitions: { topic: string; partition: number }[];
}

/** The group's state and members with their assignments, as the coordinator reports them. */
export async function describeGroup(
  kafka: KafkaClient,
  groupId: string,
): Promise<{ state: string; members: GroupMember[] }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const {
      groups: [group],
    } = await admin.describeGroups([kafka.named(groupId)]);
    return {
      state: group.state,
      members: group.members.map((member) => {
        const decoded = member.memberAssignment.length
          ? AssignerProtocol.MemberAssignment.decode(member.memberAssignment)
          : null;
        return {
          memberId: member.memberId,
          clientId: member.clientId,
          partitions: Object.entries(decoded?.assignment ?? {}).flatMap(([topic, partitions]) =>
            partitions.map((partition) => ({ topic: kafka.domainName(topic), partition })),
          ),
        };
      }),
    };
  } finally {
    await admin.disconnect();
  }
}

/**
 * Waits until no process is a member of any of `groups`. Apps of another suite running at the same
 * time against the same brokers and database would join our groups and claim our due rows (DMs,
 * renewals, snapshot runs) with fakes of their own, so a suite that counts who did what starts alone.
 */
export async function waitForIdleGroups(
  kafka: KafkaClient,
  groups: readonly string[],
  timeoutMs: number,
): Promise<void> {
  let busy: string[] = [];
  try {
    await waitFor(
      'the consumer groups to have no members',
      async () => {
        busy = [];
        for (const group of groups) {
          const { members } = await describeGroup(kafka, group);
          if (members.length > 0) busy.push(`${group} (${members.length})`);
        }
        return busy.length === 0;
      },
      { timeoutMs, intervalMs: 1_000 },
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message}: other processes are members of ${busy.join(', ')}; ` +
        'another suite is running apps against the same Kafka and database',
    );
  }
}

/**
 * Watches `groups` while a suite runs and notes every moment one had more members than the suite
 * started: a sign that another suite's apps joined, and may also have taken our due rows.
 */
export class GroupWatch {
  readonly crowded: { group: string; members: number; at: Date }[] = [];
  private readonly admin: Admin;
  private timer?: NodeJS.Timeout;
  private tick?: Promise<void>;

  constructor(
    private readonly kafka: KafkaClient,
    private readonly groups: readonly string[],
    private readonly expectedMembers: number,
  ) {
    this.admin = kafka.admin();
  }

  async start(intervalMs = 1_000): Promise<void> {
    await this.admin.connect();
    this.timer = setInterval(() => {
      this.tick ??= this.look().finally(() => (this.tick = undefined));
    }, intervalMs);
  }

  /** One line per group that was crowded: the most members seen and since when. */
  summary(): string[] {
    return this.groups.flatMap((group) => {
      const seen = this.crowded.filter((entry) => entry.group === group);
      if (seen.length === 0) return [];
      const most = Math.max(...seen.map((entry) => entry.members));
      return [
        `${group}: up to ${most} members (expected ${this.expectedMembers}) from ${seen[0].at.toISOString()}`,
      ];
    });
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.tick;
    await this.admin.disconnect();
  }

  private async look(): Promise<void> {
    try {
      const { groups } = await this.admin.describeGroups(this.groups.map((group) => this.kafka.named(group)));
      for (const group of groups) {
        if (group.members.length > this.expectedMembers)
          this.crowded.push({
            group: this.kafka.domainName(group.groupId),
            members: group.members.length,
            at: new Date(),
          });
      }
    } catch {
      // A missed look is only a missed warning.
    }
  }
}

/** Whether every partition of `topics` has the group's committed offset at its end (nothing left to read). */
export async function groupCaughtUp(
  kafka: KafkaClient,
  groupId: string,
  topics: readonly string[],
): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const topic of topics) {
      const ends = await admin.fetchTopicOffsets(kafka.named(topic));
      const [committed] = await admin.fetchOffsets({
        groupId: kafka.named(groupId),
        topics: [kafka.named(topic)],
      });
      for (const end of ends) {
        const offset = committed.partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
        if (BigInt(end.high) > 0n && BigInt(offset) < BigInt(end.high)) return false;
      }
    }
    return true;
  } finally {
    await admin.disconnect();
  }
}

const partitioner = Partitioners.DefaultPartitioner();
const partitionMetadata = Array.from({ length: TOPIC_PARTITIONS }, (_, partitionId) => ({
  partitionId,
  leader: 0,
  replicas: [0],
  isr: [0],
  offlineReplicas: [],
  partitionErrorCode: 0,
}));

/** The partition the producers' default partitioner puts a message with this key on. */
export function partitionOf(topic: string, key: string): number {
  return partitioner({ topic, partitionMetadata, message: { key, value: null } });
}

/** How many times each key occurs. */
export function tally<T>(items: readonly T[], keyOf: (item: T) => string | undefined): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) {
    const key = keyOf(item);
    if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** One line of the summary table a replica suite prints. */
export interface ReplicaCheckRow {
  check: string;
  replicas: number;
  /** Due items or events the check expected to be applied. */
  expected: number;
  applied: number;
  /** Applied more than once (extra applications counted). */
  duplicates: number;
  /** Expected but never applied. */
  lost: number;
  /** Who did the work, e.g. `14/11`. */
  split: string;
}

/** The rows as a fixed-width table. */
export function formatTable(rows: readonly ReplicaCheckRow[]): string {
  const header = ['job / consumer', 'replicas', 'due/events', 'applied', 'duplicates', 'lost', 'per replica'];
  const lines = rows.map((row) => [
    row.check,
    String(row.replicas),
    String(row.expected),
    String(row.applied),
    String(row.duplicates),
    String(row.lost),
    row.split,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column].length)),
  );
  const render = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ');
  return [render(header), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.map(render)].join(
    '\n',
  );
}
