import 'reflect-metadata';
import {
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  registerDecorator,
  ValidateIf,
} from 'class-validator';
import { validateCronExpression } from 'cron';
import { IsPublicKeySet, IsSigningKey } from './internal-keys';
import { EmptyIsUnset, IsEnvBoolean, IsIntegerInRange } from './setting-decorators';

export const NODE_ENVS = ['development', 'test', 'production'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A cron expression the scheduler accepts (five fields, or six with seconds first). */
export function IsCronExpression() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isCronExpression',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a cron expression such as '15 4 * * *'` },
      validator: {
        validate: (value: unknown) => typeof value === 'string' && validateCronExpression(value).valid,
      },
    });
}

/** Variables every app reads. Apps extend this class with their own. */
export class BaseEnv {
  /** `development`, `test` or `production` (production: secure cookies, no stack traces in answers). */
  @IsIn(NODE_ENVS)
  NODE_ENV: NodeEnv = 'development';

  /** The least severe pino level logged: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. */
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** The HTTP port the app listens on. */
  @IsIntegerInRange(0, 65535)
  PORT!: number;

  /** `postgres://` URL of the app's own login (role `guildkeeper_<app>`); the migration job's is the administrator's (secret: holds the password). */
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL!: string;

  /**
   * This service's own private key (an Ed25519 JWK whose `kid` is the service's name) for the
   * internal tokens it signs. Only the gateway's key makes user identities that services believe.
   */
  @IsSigningKey()
  INTERNAL_SIGNING_KEY!: string;

  /** Every service's public key (a JWK set, kid = service name): whose internal tokens to believe. */
  @IsPublicKeySet()
  INTERNAL_PUBLIC_KEYS!: string;

  /** Run pending migrations at start (development default; production runs the migration job). */
  @IsEnvBoolean()
  MIGRATE_ON_START: boolean = false;
}

export const EVENT_TRANSPORTS = ['kafka', 'in-process'] as const;
export const KAFKA_SASL_MECHANISMS = ['scram-sha-256', 'scram-sha-512'] as const;

/** Apps that publish or consume domain events. */
export class KafkaEnv extends BaseEnv {
  /**
   * `kafka` (the distributed deployment) or `in-process`: standalone mode, where every context runs
   * in one process and the outbox relays hand events straight to its consumers. Never set
   * `in-process` on an app that runs on its own: no other process would see its events.
   */
  @IsIn(EVENT_TRANSPORTS, { message: `EVENT_TRANSPORT must be one of ${EVENT_TRANSPORTS.join(', ')}` })
  EVENT_TRANSPORT: (typeof EVENT_TRANSPORTS)[number] = 'kafka';

  /** The brokers, `host:port[,host:port]`; required with `EVENT_TRANSPORT=kafka`. */
  @ValidateIf((env: KafkaEnv) => env.EVENT_TRANSPORT === 'kafka')
  @IsString()
  @IsNotEmpty()
  @Matches(/^[^,\s]+:\d+(,[^,\s]+:\d+)*$/, { message: 'KAFKA_BROKERS must be host:port[,host:port...]' })
  KAFKA_BROKERS!: string;

  /** SASL/SCRAM login of this service at the brokers; unset: no SASL (the local test broker). */
  @EmptyIsUnset()
  @IsOptional()
  @IsIn(KAFKA_SASL_MECHANISMS, {
    message: `KAFKA_SASL_MECHANISM must be one of ${KAFKA_SASL_MECHANISMS.join(', ')}`,
  })
  KAFKA_SASL_MECHANISM?: (typeof KAFKA_SASL_MECHANISMS)[number];

  /** This service's own Kafka user (SCRAM), with `KAFKA_SASL_MECHANISM`. */
  @ValidateIf((env: KafkaEnv) => env.KAFKA_SASL_MECHANISM !== undefined)
  @IsString()
  @IsNotEmpty({ message: 'KAFKA_SASL_USERNAME must be set with KAFKA_SASL_MECHANISM' })
  KAFKA_SASL_USERNAME?: string;

  /** The password of `KAFKA_SASL_USERNAME` (secret). */
  @ValidateIf((env: KafkaEnv) => env.KAFKA_SASL_MECHANISM !== undefined)
  @IsString()
  @IsNotEmpty({ message: 'KAFKA_SASL_PASSWORD must be set with KAFKA_SASL_MECHANISM' })
  KAFKA_SASL_PASSWORD?: string;

  /** TLS to the brokers (with the system's CAs). */
  @IsEnvBoolean()
  KAFKA_TLS: boolean = false;

  /**
   * Create missing domain topics at start (local and standalone runs). Off where the topics are
   * declared by the platform (Strimzi KafkaTopic) and the service's Kafka user may not create any.
   */
  @IsEnvBoolean()
  KAFKA_CREATE_TOPICS: boolean = true;

  /**
   * A prefix of every topic and consumer group this service names, e.g. `staging.`, for
   * installations that share one Kafka cluster (the test suite's parallel workers do). Empty: the
   * names as the contract and the generated ACLs have them.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]{0,40}$/, {
    message: 'KAFKA_NAMESPACE may hold only letters, digits, ".", "_" and "-" (at most 40)',
  })
  KAFKA_NAMESPACE: string = '';

  /**
   * When this service's retention sweep runs, in UTC (one replica runs it, in small batches):
   * nightly, after the 04:00 snapshot retention and the 04:15 webhook events one.
   */
  @IsCronExpression()
  RETENTION_CRON = '30 4 * * *';

  /**
   * Hours a published event's outbox row is kept after it was sent (every replica's relay deletes
   * older ones every 10 minutes, in batches). In standalone mode the in-process bus can hand an
   * event to its consumers again until then; at most 7 days, below PROCESSED_EVENTS_RETENTION_DAYS'
   * floor, so a consumer always still knows an event it could be handed again.
   */
  @IsIntegerInRange(1, 168)
  OUTBOX_RETENTION_HOURS: number = 72;
}

/** A service that consumes domain events, and so keeps a `processed_events` record. */
export class ConsumerEnv extends KafkaEnv {
  /**
   * Days a consumed event's `processed_events` row is kept. Its only use is to absorb a redelivery,
   * and nothing is redelivered after the topics drop it (7 days, k8s/base/kafka-topics.yaml) or, in
   * standalone mode, after the outbox drops a sent row (72 hours): the floor of 8 days keeps it past
   * both, the default of 14 a week past the topics. Raise it with the topics' retention.
   */
  @IsIntegerInRange(8, 3650)
  PROCESSED_EVENTS_RETENTION_DAYS: number = 14;
}
