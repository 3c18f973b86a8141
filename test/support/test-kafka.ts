import { createKafka, type KafkaClient } from '@lib/messaging';

/**
 * A Kafka client in this test worker's namespace (test-env's KAFKA_NAMESPACE), as the apps it
 * starts have: its topics and groups are the worker's own, whatever other workers run beside it.
 */
export function testKafka(clientId: string): KafkaClient {
  return createKafka(process.env.KAFKA_BROKERS!, clientId, {}, process.env.KAFKA_NAMESPACE);
}
