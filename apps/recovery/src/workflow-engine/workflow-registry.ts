import type { InjectionToken, ModuleMetadata, Provider } from '@nestjs/common';
import { ANTINUKE_ACTIVITIES } from '../antinuke/activities/antinuke.activities';
import { AntiNukeRunner } from '../antinuke/antinuke-runner';
import { DESTRUCTIVE_ACTION_SINK } from '../antinuke/destructive-action';
import { ANTINUKE_WORKFLOW_TYPE } from '../antinuke/workflows/antinuke-contract';
import { RestoreActivitiesModule } from '../restore/activities/restore-activities.module';
import { RESTORE_ACTIVITIES } from '../restore/activities/restore.activities';
import { RestoreRunner } from '../restore/restore-runner';
import { RESTORE_WORKFLOW_TYPE } from '../restore/workflows/restore-contract';
import { InProcessAntiNukeRunner } from './in-process/in-process-antinuke-runner';
import { InProcessRestoreRunner } from './in-process/in-process-restore-runner';
import { AntiNukeSignalSink } from './temporal/antinuke-signal.sink';
import { TemporalAntiNukeRunner } from './temporal/temporal-antinuke-runner';
import { TemporalRestoreRunner } from './temporal/temporal-restore-runner';

/** One workflow of the recovery task queue, as both engines run it. */
export interface RegisteredWorkflow {
  /** The workflow function's name, exported by worker-bundle.ts (the worker's bundle entry). */
  workflowType: string;
  /** Its activities (an object of functions): the Temporal worker registers them. */
  activities: InjectionToken;
  /** Modules providing the activities and what the engine classes inject; global modules need none. */
  imports: NonNullable<ModuleMetadata['imports']>;
  /** What the rest of the app injects (the workflow's own abstract class and sinks). */
  exports: InjectionToken[];
  /** Those, with WORKFLOW_ENGINE=temporal. */
  temporal: Provider[];
  /** Those, with WORKFLOW_ENGINE=in-process (standalone mode). */
  inProcess: Provider[];
}

/**
 * Every workflow of the recovery task queue. Adding one: its workflow code, contract and
 * activities in its own folder (as restore/ and antinuke/), its engine classes in temporal/ and
 * in-process/, one entry here and one export in worker-bundle.ts.
 */
export const WORKFLOW_REGISTRY: readonly RegisteredWorkflow[] = [
  {
    workflowType: RESTORE_WORKFLOW_TYPE,
    activities: RESTORE_ACTIVITIES,
    imports: [RestoreActivitiesModule],
    exports: [RestoreRunner],
    temporal: [{ provide: RestoreRunner, useClass: TemporalRestoreRunner }],
    inProcess: [{ provide: RestoreRunner, useClass: InProcessRestoreRunner }],
  },
  {
    workflowType: ANTINUKE_WORKFLOW_TYPE,
    // ANTINUKE_ACTIVITIES and the settings repository come from the global AntiNukeModule.
    activities: ANTINUKE_ACTIVITIES,
    imports: [],
    exports: [AntiNukeRunner, DESTRUCTIVE_ACTION_SINK],
    temporal: [
      { provide: AntiNukeRunner, useClass: TemporalAntiNukeRunner },
      { provide: DESTRUCTIVE_ACTION_SINK, useClass: AntiNukeSignalSink },
    ],
    inProcess: [
      { provide: AntiNukeRunner, useClass: InProcessAntiNukeRunner },
      // The in-process engine counts the actions itself.
      { provide: DESTRUCTIVE_ACTION_SINK, useExisting: AntiNukeRunner },
    ],
  },
];
