import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { Connection } from '@temporalio/client';
import type { ReadinessCheck } from '@lib/runtime';
import type { RecoveryEnv } from '../recovery.env';
import {
  RECOVERY_ACTIVITIES,
  RECOVERY_WORKER_ENABLED,
  RecoveryWorkerService,
} from './temporal/recovery-worker.service';
import { checkTemporal, TemporalModule } from './temporal/temporal.module';
import { WORKFLOW_REGISTRY } from './workflow-registry';

/** The readiness check of the workflow engine (Temporal answers; in-process is always ready). */
export const WORKFLOW_ENGINE_READINESS = Symbol('WORKFLOW_ENGINE_READINESS');

type WorkflowEngineConfig = Pick<
  RecoveryEnv,
  | 'WORKFLOW_ENGINE'
  | 'RECOVERY_ROLE'
  | 'TEMPORAL_ADDRESS'
  | 'TEMPORAL_NAMESPACE'
  | 'TEMPORAL_TASK_QUEUE'
  | 'TEMPORAL_WORKFLOW_BUNDLE'
>;

/**
 * What runs the workflows of WORKFLOW_REGISTRY (restores, AntiNuke), as WORKFLOW_ENGINE says:
 * Temporal (the distributed deployment; with RECOVERY_ROLE worker or all this process also runs
 * the worker, RecoveryWorkerService) or this process (standalone mode). Provides each registered
 * workflow's exports (RestoreRunner, AntiNukeRunner, DESTRUCTIVE_ACTION_SINK) and
 * WORKFLOW_ENGINE_READINESS.
 */
@Module({})
export class WorkflowEngineModule {
  static forRoot(config: WorkflowEngineConfig): DynamicModule {
    const inProcess = config.WORKFLOW_ENGINE === 'in-process';
    return {
      module: WorkflowEngineModule,
      global: true,
      imports: [
        ...WORKFLOW_REGISTRY.flatMap((workflow) => workflow.imports),
        ...(inProcess
          ? []
          : [
              TemporalModule.forRoot({
                address: config.TEMPORAL_ADDRESS,
                namespace: config.TEMPORAL_NAMESPACE,
                taskQueue: config.TEMPORAL_TASK_QUEUE,
                workflowBundlePath: config.TEMPORAL_WORKFLOW_BUNDLE,
              }),
            ]),
      ],
      providers: [
        ...WORKFLOW_REGISTRY.flatMap((workflow) => (inProcess ? workflow.inProcess : workflow.temporal)),
        ...(inProcess ? inProcessEngine() : temporalEngine(config.RECOVERY_ROLE !== 'api')),
      ],
      exports: [...WORKFLOW_REGISTRY.flatMap((workflow) => workflow.exports), WORKFLOW_ENGINE_READINESS],
    };
  }
}

function temporalEngine(runWorker: boolean): Provider[] {
  return [
    {
      provide: WORKFLOW_ENGINE_READINESS,
      inject: [Connection],
      useFactory: (connection: Connection): ReadinessCheck => ({
        name: 'temporal',
        check: () => checkTemporal(connection),
      }),
    },
    { provide: RECOVERY_WORKER_ENABLED, useValue: runWorker },
    {
      provide: RECOVERY_ACTIVITIES,
      inject: WORKFLOW_REGISTRY.map((workflow) => workflow.activities),
      useFactory: (...activities: object[]): object => Object.assign({}, ...activities) as object,
    },
    RecoveryWorkerService,
  ];
}

function inProcessEngine(): Provider[] {
  return [
    {
      provide: WORKFLOW_ENGINE_READINESS,
      useValue: { name: 'workflow_engine', check: () => Promise.resolve() } satisfies ReadinessCheck,
    },
  ];
}
