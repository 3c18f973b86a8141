import { Controller, type DynamicModule, type FactoryProvider, Get, Inject, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TerminusModule } from '@nestjs/terminus';
import { PublicRoute } from '@lib/identity';
import { DataSource } from 'typeorm';

/** A dependency the app cannot serve without; `check` throws when it is not usable. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

const CHECK_TIMEOUT_MS = 3_000;

async function withTimeout(promise: Promise<void>, name: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name} check timed out`)), CHECK_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

@PublicRoute()
@Controller('health')
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly dataSource: DataSource,
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
  ) {}

  /** The process is up; restarts are for a wedged process, not a missing dependency. */
  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    const database: ReadinessCheck = {
      name: 'database',
      check: async () => {
        // sql-placement-exempt: a one-off liveness probe of the pool, no table or data behind it.
        await this.dataSource.query('SELECT 1');
      },
    };
    return this.health.check(
      [database, ...this.checks].map((dependency) => async () => {
        const indicator = this.indicators.check(dependency.name);
        try {
          await withTimeout(dependency.check(), dependency.name);
          return indicator.up();
        } catch (error) {
          return indicator.down({ message: error instanceof Error ? error.message : String(error) });
        }
      }),
    );
  }
}

@Module({})
export class HealthModule {
  /**
   * `GET /health/live` and `GET /health/ready`; ready checks the database and whatever the app
   * lists under READINESS_CHECKS (Kafka, Temporal, Redis).
   */
  static forRoot(
    checks: Omit<FactoryProvider<ReadinessCheck[]>, 'provide'> = { useFactory: () => [] },
  ): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController],
      providers: [{ ...checks, provide: READINESS_CHECKS }],
    };
  }
}
