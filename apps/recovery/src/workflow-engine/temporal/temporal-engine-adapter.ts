import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client } from '@temporalio/client';
import { TEMPORAL_OPTIONS, type TemporalOptions } from './temporal.module';

/**
 * What each workflow's engine class on Temporal starts from: the client, the options that name the
 * task queue, and a logger under the class's own name. The classes implement their workflow's
 * abstract class (RestoreRunner, AntiNukeRunner), under which the registry provides them.
 */
@Injectable()
export abstract class TemporalEngineAdapter {
  protected readonly logger = new Logger(this.constructor.name);

  constructor(
    protected readonly temporal: Client,
    @Inject(TEMPORAL_OPTIONS) protected readonly options: TemporalOptions,
  ) {}
}
