import { Logger } from '@nestjs/common';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';

/** Task queue of every recovery workflow (restore, antinuke). */
export const RECOVERY_TASK_QUEUE = 'recovery';

export interface RecoveryWorkerOptions {
  address: string;
  namespace: string;
  /** Workflow code: a source path bundled at start (development, tests) or a prebuilt bundle (images). */
  workflows: Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle'>;
  activities: object;
  taskQueue?: string;
}

export interface RecoveryWorker {
  worker: Worker;
  /** Resolves when the worker has stopped (after shutdown() drained in-flight activities). */
  run(): Promise<void>;
  /** Runs until `promise` settles, then stops; for tests and one-off jobs. */
  runUntil<T>(promise: Promise<T>): Promise<T>;
  shutdown(): Promise<void>;
}

let temporalLogsRouted = false;

/**
 * Temporal's own log lines (its core's, and the workflow bundler's list of modules at INFO) go
 * through the app's logger, so they are JSON lines that LOG_LEVEL filters like the rest, not
 * plain text on stdout. The SDK's runtime is one per process and takes its logger when it is first
 * made: a process that made it before (a test process that connected first) keeps the default.
 */
function routeTemporalLogs(): void {
  if (temporalLogsRouted) return;
  temporalLogsRouted = true;
  const logger = new Logger('temporal');
  try {
    Runtime.install({
      logger: new DefaultLogger('INFO', ({ level, message, meta }) => {
        if (level === 'ERROR') logger.error(meta ?? {}, message);
        else if (level === 'WARN') logger.warn(meta ?? {}, message);
        else logger.log(meta ?? {}, message);
      }),
    });
  } catch {
    // Already made in this process: its logger stays.
  }
}

/**
 * Creates the worker that runs recovery workflows and activities in this process
 * (RECOVERY_ROLE=worker|all), so the API and the workers scale apart.
 */
export async function createRecoveryWorker(options: RecoveryWorkerOptions): Promise<RecoveryWorker> {
  routeTemporalLogs();
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? RECOVERY_TASK_QUEUE,
    activities: options.activities,
    // A worker that goes away leaves its sticky queue behind; the Java test server does not move
    // such workflow tasks back to the shared queue, so a replacement worker would never see them.
    // Restore workflows are short histories; replaying each task costs little.
    maxCachedWorkflows: 0,
    // SIGTERM (a rollout, a scale-down): running activities get this long to finish before they
    // are cancelled; a restore's steps are batches of seconds, and a cut one is redone by the next.
    shutdownGraceTime: '30s',
    ...options.workflows,
  });
  let running: Promise<void> | undefined;
  return {
    worker,
    run() {
      running ??= worker.run().finally(() => connection.close());
      return running;
    },
    runUntil(promise) {
      return worker.runUntil(promise).finally(() => connection.close());
    },
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
