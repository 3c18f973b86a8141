import { Logger } from '@nestjs/common';
import { settledWithin } from '@lib/runtime';

/** How long shutdown waits for the runs under way to end (or record what they were doing). */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * What each workflow's engine class in this process (WORKFLOW_ENGINE=in-process) starts from: the
 * runs it holds, a logger under the class's own name, and shutdown's wait for the runs. The
 * classes implement their workflow's abstract class (RestoreRunner, AntiNukeRunner), under
 * which the registry provides them.
 */
export abstract class InProcessEngineAdapter<Run> {
  protected readonly logger = new Logger(this.constructor.name);
  /** The runs under way in this process, by the key the engine class names them by. */
  protected readonly runs = new Map<string, Run>();

  /** Waits for `work` until SHUTDOWN_GRACE_MS has passed; false when some was still under way. */
  protected settledBeforeShutdown(work: Promise<unknown>[]): Promise<boolean> {
    return settledWithin(work, SHUTDOWN_GRACE_MS);
  }
}
