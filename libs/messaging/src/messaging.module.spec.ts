import type { Admin } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { createKafka } from './kafka';
import {
  MessagingModule,
  type MessagingModuleOptions,
  transportOf,
  type TransportEnv,
} from './messaging.module';

const kafkaEnv: TransportEnv = { EVENT_TRANSPORT: 'kafka', KAFKA_BROKERS: '127.0.0.1:9092' };

describe(transportOf.name, () => {
  it('is the in-process bus in standalone mode, whatever the Kafka settings say', () => {
    expect(
      transportOf({ ...kafkaEnv, EVENT_TRANSPORT: 'in-process', KAFKA_SASL_MECHANISM: 'scram-sha-512' }),
    ).toEqual({ transport: 'in-process' });
  });

  it('without KAFKA_SASL_* connects in the clear and creates the topics (the local test stack)', () => {
    expect(transportOf(kafkaEnv)).toEqual({
      transport: 'kafka',
      brokers: '127.0.0.1:9092',
      security: { sasl: undefined, tls: false },
      createTopics: true,
      namespace: '',
    });
  });

  it('maps KAFKA_SASL_*, KAFKA_TLS, KAFKA_CREATE_TOPICS and KAFKA_NAMESPACE to the client options', () => {
    const options = transportOf({
      EVENT_TRANSPORT: 'kafka',
      KAFKA_BROKERS: 'kafka:9093',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'licensing',
      KAFKA_SASL_PASSWORD: 'licensing-password',
      KAFKA_TLS: true,
      KAFKA_CREATE_TOPICS: false,
      KAFKA_NAMESPACE: 'staging.',
    });
    expect(options).toEqual({
      transport: 'kafka',
      brokers: 'kafka:9093',
      security: {
        sasl: { mechanism: 'scram-sha-512', username: 'licensing', password: 'licensing-password' },
        tls: true,
      },
      createTopics: false,
      namespace: 'staging.',
    });
  });

  it('refuses a mechanism without a user or password, without echoing the password', () => {
    expect(() =>
      transportOf({ ...kafkaEnv, KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_PASSWORD: 'secret-pw' }),
    ).toThrow(/^(?!.*secret-pw).*KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD must be set/);
    expect(() =>
      transportOf({ ...kafkaEnv, KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'billing' }),
    ).toThrow(/KAFKA_SASL_PASSWORD must be set/);
  });
});

describe(MessagingModule.name, () => {
  /** A kafkajs client whose admin records the topics it was asked to create. */
  function fakeKafka({ mayCreate = true, namespace = '' } = {}) {
    const created: string[] = [];
    const admin = {
      connect: () => Promise.resolve(),
      disconnect: () => Promise.resolve(),
      listTopics: () => Promise.resolve([]),
      fetchTopicOffsets: () => Promise.resolve([]),
      createTopics: ({ topics }: { topics: { topic: string }[] }) => {
        if (!mayCreate) return Promise.reject(new Error('Not authorized to access topics'));
        created.push(...topics.map(({ topic }) => topic));
        return Promise.resolve(true);
      },
    };
    const kafka = Object.assign(createKafka('127.0.0.1:9', 'spec', {}, namespace), { admin: () => admin });
    return { kafka, admin: admin as unknown as Admin, created };
  }

  function bootstrap(options: Partial<MessagingModuleOptions>, { mayCreate = true, namespace = '' } = {}) {
    const { kafka, admin, created } = fakeKafka({ mayCreate, namespace });
    const sut = new MessagingModule(
      { clientId: 'billing', schema: 'billing', brokers: '127.0.0.1:9092', ...options },
      {} as DataSource,
      kafka,
      admin,
    );
    return { sut, created };
  }

  it("creates the domain topics in the client's namespace", async () => {
    const { sut, created } = bootstrap({}, { namespace: 'w2.' });
    await sut.onApplicationBootstrap();
    expect(created).toEqual(['w2.recovery.events', 'w2.billing.events', 'w2.licensing.events']);
  });

  it('creates the missing domain topics at start by default', async () => {
    const { sut, created } = bootstrap({});
    await sut.onApplicationBootstrap();
    expect(created).toEqual(['recovery.events', 'billing.events', 'licensing.events']);
  });

  it('creates no topic when KAFKA_CREATE_TOPICS is false', async () => {
    const { sut, created } = bootstrap(transportOf({ ...kafkaEnv, KAFKA_CREATE_TOPICS: false }));
    await sut.onApplicationBootstrap();
    expect(created).toEqual([]);
  });

  it('names the setting to change when the Kafka user may not create topics', async () => {
    const { sut } = bootstrap({}, { mayCreate: false });
    await expect(sut.onApplicationBootstrap()).rejects.toThrow(
      /Not authorized to access topics.*set KAFKA_CREATE_TOPICS=false/,
    );
  });
});
