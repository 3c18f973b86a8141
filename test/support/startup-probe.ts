import { connect } from 'node:net';

/** What the port did while the probe knocked. */
export interface StartupProbeReport {
  /** Connections refused: nothing listening yet, as it should be before the routes are mounted. */
  refused: number;
  /** Each status the port answered with, and how often. */
  statuses: Record<number, number>;
  /** 503 answers without a `Retry-After` header. */
  unavailableWithoutRetryAfter: number;
  /** Connections accepted but not answered within the limit (what the user sees as a hang). */
  unanswered: number;
}

/**
 * Knocks on a loopback port over and over while a service starts: a new connection each time, a
 * `GET` on `path`, and an answer awaited for `answerWithinMs`. A port that accepts a connection
 * must answer it; one that is not ready yet must either refuse the connection or say so (503 with
 * `Retry-After`).
 */
export class StartupProbe {
  private readonly report: StartupProbeReport = {
    refused: 0,
    statuses: {},
    unavailableWithoutRetryAfter: 0,
    unanswered: 0,
  };
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly port: number,
    private readonly path = '/health/live',
    private readonly answerWithinMs = 1_000,
  ) {}

  start(): this {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        await this.knock();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    return this;
  }

  /** Whether the port has answered with `status` yet. */
  answered(status: number): boolean {
    return (this.report.statuses[status] ?? 0) > 0;
  }

  /** Stops knocking (after the knock under way) and reports. */
  async stop(): Promise<StartupProbeReport> {
    this.running = false;
    await this.loop;
    return this.report;
  }

  private knock(): Promise<void> {
    return new Promise((resolve) => {
      const socket = connect(this.port, '127.0.0.1');
      let head = '';
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        outcome();
        resolve();
      };
      const timer = setTimeout(() => settle(() => this.report.unanswered++), this.answerWithinMs);
      socket.once('connect', () =>
        socket.write(`GET ${this.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
      );
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        settle(() => this.record(head));
      });
      socket.once('error', (error: NodeJS.ErrnoException) =>
        settle(() => {
          if (error.code === 'ECONNREFUSED') this.report.refused++;
          else this.report.unanswered++;
        }),
      );
      // Closed without a complete answer: as bad as no answer.
      socket.once('close', () => settle(() => this.report.unanswered++));
    });
  }

  private record(head: string): void {
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
    this.report.statuses[status] = (this.report.statuses[status] ?? 0) + 1;
    if (status === 503 && !/\r\nretry-after: *\d+/i.test(head)) this.report.unavailableWithoutRetryAfter++;
  }
}
