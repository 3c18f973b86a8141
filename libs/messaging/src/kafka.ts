import { Logger } from '@nestjs/common';
import { ALL_TOPICS } from '@lib/contracts';
import { type Admin, Kafka, type KafkaConfig, type LogEntry, logLevel, type SASLOptions } from 'kafkajs';

/** How a client proves itself to the brokers (KafkaEnv's KAFKA_SASL_* and KAFKA_TLS). */
export interface KafkaSecurity {
  /** SASL/SCRAM login as the service's own Kafka user; absent: no SASL (the local test broker). */
  sasl?: { mechanism: 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  /** TLS with the system's CAs; NODE_EXTRA_CA_CERTS adds a private one. */
  tls?: boolean;
}

/** Routes kafkajs's own logging into the app logger; it is chatty at INFO during rebalances. */
function kafkaLogCreator() {
  const logger = new Logger('kafkajs');
  return () =>
    ({ level, log }: LogEntry) => {
      const { message, ...extra } = log;
      // "Response <api>" errors are one broker answer that kafkajs retries itself (e.g. "the
      // coordinator is loading" while a fresh broker starts). If the retries run out the call
      // throws and our own code logs the failure, so here it is only a warning.
      // Likewise a consumer "crash": every consumer here restarts on any failure
      // (restartOnFailure), so a crash is always followed by "Restarting the consumer".
      const retriedByClient = /^(Response |Crash: |Restarting the consumer)/.test(message);
      if (level === logLevel.ERROR && !retriedByClient) logger.error(extra, message);
      else if (level === logLevel.ERROR || level === logLevel.WARN) logger.warn(extra, message);
      else logger.debug(extra, message);
    };
}

/** The kafkajs client options; the SASL password goes to kafkajs only, which never logs it. */
export function kafkaConfig(brokers: string, clientId: string, security: KafkaSecurity = {}): KafkaConfig {
  return {
    clientId,
    brokers: brokers.split(','),
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator(),
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    // Keep retrying a broker that is down; the relay keeps the rows and backs off on its own.
    retry: { initialRetryTime: 200, maxRetryTime: 5_000, retries: 8 },
    ...(security.sasl && { sasl: scram(security.sasl) }),
    ...(security.tls && { ssl: true }),
  };
}

/** kafkajs types each mechanism on its own, so one whose name is a union fits neither. */
function scram({ mechanism, username, password }: NonNullable<KafkaSecurity['sasl']>): SASLOptions {
  return mechanism === 'scram-sha-256'
    ? { mechanism, username, password }
    : { mechanism, username, password };
}

/**
 * A Kafka client that knows its installation's names. With a namespace (KAFKA_NAMESPACE), every
 * topic and consumer group it names starts with it, so that several installations (or the test
 * suite's parallel workers) share one cluster without reading each other's events or splitting each
 * other's groups. Without one, the names are the contract's own, as the Kafka ACLs name them.
 */
export class KafkaClient extends Kafka {
  constructor(
    config: KafkaConfig,
    readonly namespace = '',
  ) {
    super(config);
  }

  /** The broker's name of a domain topic or consumer group. */
  named(name: string): string {
    return this.namespace + name;
  }

  /** The contract's name of a broker's topic or group (handlers are registered under the topic's). */
  domainName(brokerName: string): string {
    return brokerName.startsWith(this.namespace) ? brokerName.slice(this.namespace.length) : brokerName;
  }
}

export function createKafka(
  brokers: string,
  clientId: string,
  security: KafkaSecurity = {},
  namespace = '',
): KafkaClient {
  return new KafkaClient(kafkaConfig(brokers, clientId, security), namespace);
}

export const TOPIC_PARTITIONS = 6;

/** Creates the domain topics (in the client's namespace) when missing (idempotent; production declares them in k8s too). */
export async function ensureTopics(
  kafka: KafkaClient,
  topics: readonly string[] = ALL_TOPICS,
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  const deadline = Date.now() + CREATION_TIMEOUT_MS;
  try {
    const wanted = topics.map((topic) => kafka.named(topic));
    let created = false;
    for (;;) {
      const existing = new Set(await admin.listTopics());
      const missing = wanted.filter((topic) => !existing.has(topic));
      if (missing.length === 0) break;
      try {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((topic) => ({ topic, numPartitions: TOPIC_PARTITIONS, replicationFactor: 1 })),
        });
        created = true;
        break;
      } catch (error) {
        // Another service creating the same topics at the same moment, or a broker still loading
        // them, answers a retriable error (UNKNOWN_TOPIC_OR_PARTITION while their partitions come
        // up): look again at what is missing and try once more.
        if (!isRetriable(error) || Date.now() > deadline) throw error;
        created = true;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
    if (created) await untilServed(admin, wanted, deadline);
  } finally {
    await admin.disconnect();
  }
}

const CREATION_TIMEOUT_MS = 15_000;
const RETRY_MS = 200;

function isRetriable(error: unknown): boolean {
  return (error as { retriable?: unknown } | null)?.retriable === true;
}

/**
 * Waits until each new topic's partitions answer an offset request. Even after createTopics waited
 * for leaders, a broker answers "not the leader for that topic-partition" for a moment while
 * its metadata catches up; kafkajs's producers and consumers retry that, a caller's admin does not.
 */
async function untilServed(admin: Admin, topics: readonly string[], deadline: number): Promise<void> {
  for (const topic of topics) {
    for (;;) {
      try {
        await admin.fetchTopicOffsets(topic);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }
}

/** Readiness: the cluster answers a metadata request (an open port is not readiness). */
export async function checkKafka(admin: Admin): Promise<void> {
  const cluster = await admin.describeCluster();
  if (cluster.brokers.length === 0) throw new Error('Kafka cluster has no brokers');
}
