import { KAFKA_SERVICES, TOPICS } from '@lib/contracts';
import {
  createKafka,
  ensureTopics,
  type KafkaClient,
  KafkaEventPublisher,
  kafkaConfig,
  type KafkaSecurity,
} from '@lib/messaging';
import { type AclEntry, Kafka, logLevel } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { aclEntries, currentAcls } from '../../scripts/infra/kafka-access';
import {
  LOCAL_KAFKA_MECHANISM,
  localKafkaPassword,
  localKafkaSaslBrokers,
} from '../../scripts/infra/kafka-local-users';
import { type AppProcess, startApp } from '../support/app-process';
import { SubscriptionScenario } from '../support/billing-events';
import { openDataSource } from '../support/database';
import { TopicReader } from '../support/topic-reader';
import { waitFor } from '../support/wait';

/**
 * Kafka trusts nobody on its SASL listener (scripts/infra.sh, 127.0.0.1:9094).
 * Each service logs in with SCRAM as its own user and may only do what the ACL matrix of
 * libs/contracts/src/kafka-access.ts grants. The plaintext listener (KAFKA_BROKERS) is the
 * test stack's own, used here only to look at the topics from outside.
 */
describe('Kafka with SASL/SCRAM and per-service ACLs', () => {
  const saslBrokers = localKafkaSaslBrokers();
  const asUser = (user: string, password = localKafkaPassword(user)): KafkaSecurity => ({
    sasl: { mechanism: LOCAL_KAFKA_MECHANISM, username: user, password },
  });
  const observer = createKafka(process.env.KAFKA_BROKERS!, 'test-kafka-acl-observer');
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    // The platform's part: with SASL the services may not create topics (KAFKA_CREATE_TOPICS=false).
    await ensureTopics(observer);
  });

  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  });

  /** The sum of the topic's partition end offsets: grows by one per message written. */
  async function endOffset(topic: string): Promise<bigint> {
    const admin = observer.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(topic);
      return offsets.reduce((sum, { high }) => sum + BigInt(high), 0n);
    } finally {
      await admin.disconnect();
    }
  }

  /** An outbox relay (the apps' publisher) on `kafka`; publishes one probe message to a topic. */
  function publisherAs(kafka: KafkaClient) {
    const publisher = new KafkaEventPublisher(kafka);
    closers.push(() => publisher.close());
    return (topic: string) => {
      const guildId = uuidv7();
      return publisher.publish([
        { id: uuidv7(), topic, key: guildId, eventType: 'SecurityProbe', envelope: '{"probe":true}' },
      ]);
    };
  }

  /** Logs in (admin connect = SASL handshake + a metadata request) and disconnects. */
  async function login(security?: KafkaSecurity): Promise<void> {
    // Refusals are the expected outcome here; kafkajs need not log them as errors.
    const kafka = new Kafka({
      ...kafkaConfig(saslBrokers, 'test-kafka-acl-login', security),
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin({ retry: { retries: 0 } });
    try {
      await admin.connect();
      await admin.describeCluster();
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  it('lets billing write billing.events and refuses it recovery.events, whose offsets stay where they were', async () => {
    const publish = publisherAs(createKafka(saslBrokers, 'billing', asUser('billing')));

    const billingBefore = await endOffset(TOPICS.billing);
    await publish(TOPICS.billing);
    expect(await endOffset(TOPICS.billing)).toBe(billingBefore + 1n);

    const recoveryBefore = await endOffset(TOPICS.recovery);
    await expect(publish(TOPICS.recovery)).rejects.toMatchObject({
      cause: expect.objectContaining({ type: 'TOPIC_AUTHORIZATION_FAILED' }),
    });
    expect(await endOffset(TOPICS.recovery)).toBe(recoveryBefore);
  });

  it('refuses a login with a wrong password', async () => {
    await expect(login(asUser('billing', 'not-billings-password'))).rejects.toMatchObject({
      name: expect.stringMatching(/SASLAuthenticationError/),
    });
    // The right one gets in, so the refusal above is the password's.
    await expect(login(asUser('billing'))).resolves.toBeUndefined();
  });

  it('refuses a client without credentials on the SASL listener', async () => {
    // The broker answers nothing but the SASL handshake there and drops the connection.
    await expect(login()).rejects.toThrow();
  });

  it("holds exactly the matrix's ACLs for every service user", async () => {
    const admin = observer.admin();
    await admin.connect();
    try {
      for (const service of KAFKA_SERVICES) {
        const onBroker = await currentAcls(admin, `User:${service}`);
        const order = (a: AclEntry, b: AclEntry) => JSON.stringify(a).localeCompare(JSON.stringify(b));
        expect(onBroker.sort(order)).toEqual(aclEntries(service).sort(order));
      }
    } finally {
      await admin.disconnect();
    }
  });

  describe('licensing, logged in as its own Kafka user', () => {
    const password = localKafkaPassword('licensing');
    let licensing: AppProcess;
    let dataSource: DataSource;
    let licensingEvents: TopicReader;

    beforeAll(async () => {
      dataSource = await openDataSource();
      licensingEvents = new TopicReader(TOPICS.licensing, observer);
      await licensingEvents.start();
      licensing = await startApp('licensing', {
        KAFKA_BROKERS: saslBrokers,
        KAFKA_SASL_MECHANISM: LOCAL_KAFKA_MECHANISM,
        KAFKA_SASL_USERNAME: 'licensing',
        KAFKA_SASL_PASSWORD: password,
        KAFKA_CREATE_TOPICS: 'false',
        // The ACLs name the contract's topics and groups, not a test worker's namespace.
        KAFKA_NAMESPACE: '',
        // Debug logs too: the password must not be in anything the app writes.
        LOG_LEVEL: 'debug',
      });
    });

    afterAll(async () => {
      await licensing?.stop();
      await licensingEvents?.stop();
      await dataSource?.destroy();
    });

    it("consumes billing's event and publishes its own licence change, end to end over SASL", async () => {
      const subscription = new SubscriptionScenario();
      const started = subscription.started('PRO');
      // Billing's part, as billing's user.
      const billing = new KafkaEventPublisher(createKafka(saslBrokers, 'billing', asUser('billing')));
      closers.push(() => billing.close());
      await billing.publish([
        {
          id: started.id,
          topic: TOPICS.billing,
          key: started.guild_id,
          eventType: started.type,
          envelope: JSON.stringify(started),
        },
      ]);

      const upgraded = await waitFor(
        'licensing to record LicenseUpgraded in its outbox',
        async () => {
          const [row] = await dataSource.query<{ id: string }[]>(
            `SELECT id FROM licensing.outbox WHERE message_key = $1 AND event_type = 'LicenseUpgraded'`,
            [subscription.guildId],
          );
          return row?.id;
        },
        { timeoutMs: 60_000 },
      );
      await waitFor('LicenseUpgraded on licensing.events', () => licensingEvents.seen.has(upgraded), {
        timeoutMs: 60_000,
      });
      expect(licensing.output()).not.toContain(password);
    });
  });
});
