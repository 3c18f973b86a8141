import { KAFKA_SERVICES } from '../../libs/contracts/src/kafka-access';

/**
 * The local broker's SCRAM users (scripts/infra.sh): one per service of the ACL matrix, plus
 * `admin`, a super user for operators. The passwords are fixed test values, not secrets: the
 * broker listens on 127.0.0.1 only and holds throwaway test data. Deployments take each
 * service's password from its own secret (KAFKA_SASL_PASSWORD).
 */
export const LOCAL_KAFKA_ADMIN = 'admin';
export const LOCAL_KAFKA_USERS: readonly string[] = [LOCAL_KAFKA_ADMIN, ...KAFKA_SERVICES];
export const LOCAL_KAFKA_MECHANISM = 'scram-sha-512';

export function localKafkaPassword(user: string): string {
  return `${user}-local-scram-password`;
}

/** The SASL listener of the local broker (KAFKA_SASL_PORT in scripts/infra.sh). */
export function localKafkaSaslBrokers(): string {
  return `127.0.0.1:${process.env.KAFKA_SASL_PORT ?? '9094'}`;
}
