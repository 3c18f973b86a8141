import { createKafka, ensureTopics, kafkaConfig } from './kafka';

describe(kafkaConfig.name, () => {
  it('connects without SASL or TLS when none is asked for (the local test broker)', () => {
    const config = kafkaConfig('127.0.0.1:9092', 'billing');
    expect(config.brokers).toEqual(['127.0.0.1:9092']);
    expect(config.clientId).toBe('billing');
    expect(config.sasl).toBeUndefined();
    expect(config.ssl).toBeUndefined();
  });

  it('logs in with SCRAM as the given user, over TLS with the system CAs when asked', () => {
    const sasl = { mechanism: 'scram-sha-512', username: 'billing', password: 'pw' } as const;
    const config = kafkaConfig('kafka-0:9093,kafka-1:9093', 'billing', { sasl, tls: true });
    expect(config.brokers).toEqual(['kafka-0:9093', 'kafka-1:9093']);
    expect(config.sasl).toEqual(sasl);
    // `true`, not an options object: tls.connect's defaults, which honour NODE_EXTRA_CA_CERTS.
    expect(config.ssl).toBe(true);
  });

  it('keeps SASL and TLS independent', () => {
    const sasl = { mechanism: 'scram-sha-256', username: 'notifier', password: 'pw' } as const;
    const saslOnly = kafkaConfig('k:9092', 'notifier', { sasl, tls: false });
    expect([saslOnly.sasl, saslOnly.ssl]).toEqual([sasl, undefined]);
    const tlsOnly = kafkaConfig('k:9092', 'notifier', { tls: true });
    expect([tlsOnly.sasl, tlsOnly.ssl]).toEqual([undefined, true]);
  });
});

describe(ensureTopics.name, () => {
  /**
   * A client whose admin has no topics and whose brokers refuse offsets `refusals` times at first;
   * with `racing`, another service creates the first topic as this one asks, and the creation
   * answers the retriable UNKNOWN_TOPIC_OR_PARTITION once.
   */
  function freshCluster(refusals: number, racing = false) {
    const calls = { created: [] as string[], offsetRequests: 0 };
    const existing: string[] = [];
    let raced = !racing;
    const admin = {
      connect: () => Promise.resolve(),
      disconnect: () => Promise.resolve(),
      listTopics: () => Promise.resolve([...existing]),
      createTopics: ({ topics }: { topics: { topic: string }[] }) => {
        if (!raced) {
          raced = true;
          existing.push(topics[0].topic);
          return Promise.reject(
            Object.assign(new Error('This server does not host this topic-partition'), { retriable: true }),
          );
        }
        calls.created.push(...topics.map(({ topic }) => topic));
        existing.push(...topics.map(({ topic }) => topic));
        return Promise.resolve(true);
      },
      fetchTopicOffsets: () => {
        calls.offsetRequests += 1;
        return calls.offsetRequests <= refusals
          ? Promise.reject(new Error('This server is not the leader for that topic-partition'))
          : Promise.resolve([]);
      },
    };
    return {
      kafka: Object.assign(createKafka('127.0.0.1:9', 'spec', {}, 'w3.'), { admin: () => admin }),
      calls,
    };
  }

  it("creates the missing topics in the client's namespace and returns once each is served", async () => {
    const { kafka, calls } = freshCluster(2);
    await ensureTopics(kafka, ['recovery.events', 'billing.events']);
    expect(calls.created).toEqual(['w3.recovery.events', 'w3.billing.events']);
    // Two refusals of the first topic, then one answer per topic.
    expect(calls.offsetRequests).toBe(4);
  });

  it('looks again at what is missing when another service creates the topics at the same moment', async () => {
    const { kafka, calls } = freshCluster(0, true);
    await ensureTopics(kafka, ['recovery.events', 'billing.events']);
    // The other service made the first; this one makes the one still missing, and waits for both.
    expect(calls.created).toEqual(['w3.billing.events']);
    expect(calls.offsetRequests).toBe(2);
  });

  it('still fails on an error retrying cannot help', async () => {
    const { kafka } = freshCluster(0);
    const admin = kafka.admin();
    admin.createTopics = () => Promise.reject(new Error('Topic authorization failed'));
    await expect(ensureTopics(kafka, ['recovery.events'])).rejects.toThrow('Topic authorization failed');
  });
});
