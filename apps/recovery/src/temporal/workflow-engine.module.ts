import { type DynamicModule, Module } from '@nestjs/common';
import { Connection } from '@temporalio/client';
import type { ReadinessCheck } from '@lib/runtime';
import { AntiNukeWorkflows } from '../antinuke/antinuke-workflows.service';
import { DESTRUCTIVE_ACTION_SINK } from '../antinuke/destructive-action';
import { AntiNukeSignalSink } from '../antinuke/antinuke-signal.sink';
import { InProcessAntiNukeWorkflows } from '../antinuke/in-process-antinuke-workflows';
import { TemporalAntiNukeWorkflows } from '../antinuke/temporal-antinuke-workflows';
import type { RecoveryEnv } from '../recovery.env';
import { RestoreActivitiesModule } from '../restore/activities/restore-activities.module';
import { InProcessRestoreWorkflows } from '../restore/in-process-restore-workflows';
import { RestoreWorkflows } from '../restore/restore-workflows';
import { TemporalRestoreWorkflows } from '../restore/temporal-restore-workflows';
import { checkTemporal, TemporalModule } from './temporal.module';

/** The readiness check of the workflow engine (Temporal answers; in-process is always ready). */
export const WORKFLOW_ENGINE_READINESS = Symbol('WORKFLOW_ENGINE_READINESS');

type Engine = Required<Pick<DynamicModule, 'imports' | 'providers'>>;
type WorkflowEngineConfig = Pick<
  RecoveryEnv,
  | 'WORKFLOW_ENGINE'
  | 'TEMPORAL_ADDRESS'
  | 'TEMPORAL_NAMESPACE'
  | 'TEMPORAL_TASK_QUEUE'
  | 'TEMPORAL_WORKFLOW_BUNDLE'
>;

/**
 * What runs restores and AntiNuke, as WORKFLOW_ENGINE says: Temporal (the distributed deployment;
 * this process's worker is RestoreWorkerService) or this process (standalone mode). Provides
 * RestoreWorkflows, AntiNukeWorkflows, DESTRUCTIVE_ACTION_SINK and WORKFLOW_ENGINE_READINESS.
 */
@Module({})
export class WorkflowEngineModule {
  static forRoot(config: WorkflowEngineConfig): DynamicModule {
    const engine = config.WORKFLOW_ENGINE === 'in-process' ? inProcess() : temporal(config);
    return {
      module: WorkflowEngineModule,
      global: true,
      imports: engine.imports,
      providers: engine.providers,
      exports: [RestoreWorkflows, AntiNukeWorkflows, DESTRUCTIVE_ACTION_SINK, WORKFLOW_ENGINE_READINESS],
    };
  }
}

function temporal(config: WorkflowEngineConfig): Engine {
  return {
    imports: [
      TemporalModule.forRoot({
        address: config.TEMPORAL_ADDRESS,
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowBundlePath: config.TEMPORAL_WORKFLOW_BUNDLE,
      }),
    ],
    providers: [
      { provide: RestoreWorkflows, useClass: TemporalRestoreWorkflows },
      { provide: AntiNukeWorkflows, useClass: TemporalAntiNukeWorkflows },
      { provide: DESTRUCTIVE_ACTION_SINK, useClass: AntiNukeSignalSink },
      {
        provide: WORKFLOW_ENGINE_READINESS,
        inject: [Connection],
        useFactory: (connection: Connection): ReadinessCheck => ({
          name: 'temporal',
          check: () => checkTemporal(connection),
        }),
      },
    ],
  };
}

function inProcess(): Engine {
  return {
    imports: [RestoreActivitiesModule],
    providers: [
      { provide: RestoreWorkflows, useClass: InProcessRestoreWorkflows },
      { provide: AntiNukeWorkflows, useClass: InProcessAntiNukeWorkflows },
      { provide: DESTRUCTIVE_ACTION_SINK, useExisting: AntiNukeWorkflows },
      {
        provide: WORKFLOW_ENGINE_READINESS,
        useValue: { name: 'workflow_engine', check: () => Promise.resolve() } satisfies ReadinessCheck,
      },
    ],
  };
}
