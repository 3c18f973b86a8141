import { ALL_TOPICS, CONSUMER_GROUPS, TOPICS, type Topic } from './topics';

/** The services that log in to Kafka, each as the Kafka user of the same name. */
export const KAFKA_SERVICES = ['recovery', 'billing', 'licensing', 'notifier'] as const;
export type KafkaService = (typeof KAFKA_SERVICES)[number];

/**
 * What one service may do on Kafka. Producers write only their own `<service>.events` (through
 * their outbox relay); everything else is a read. No service may create or delete topics, alter
 * configs or ACLs: the platform declares the topics (KAFKA_CREATE_TOPICS=false with SASL).
 */
export interface KafkaAccess {
  /** Topics its producer writes (the outbox relay's topic). */
  writes: readonly Topic[];
  /** Topics its consumers read. */
  reads: readonly Topic[];
  /** Consumer group ids used as they are. */
  groups: readonly string[];
  /**
   * Consumer group id prefixes: groups named per process (the entitlements cache listener joins
   * `<service>.entitlements-cache.<uuid>` so every replica hears every licence change).
   */
  groupPrefixes: readonly string[];
}

/** The group id prefix of a service's entitlements cache listeners (libs/entitlements). */
export function entitlementsCacheGroupPrefix(service: string): string {
  return `${service}.entitlements-cache.`;
}

/**
 * The ACL matrix, from the code that uses Kafka: each app's MessagingModule `consume` options,
 * its outbox producer, and the entitlements invalidation listener of the apps that import
 * EntitlementsModule (recovery, billing). The local broker (scripts/infra.sh), compose and the
 * k8s KafkaUser resources are generated from this one table.
 */
export const KAFKA_ACCESS: Readonly<Record<KafkaService, KafkaAccess>> = {
  recovery: {
    writes: [TOPICS.recovery],
    // AntiNuke's licence handler (group `recovery`) and the entitlements cache.
    reads: [TOPICS.licensing],
    groups: [CONSUMER_GROUPS.recovery],
    groupPrefixes: [entitlementsCacheGroupPrefix('recovery')],
  },
  billing: {
    writes: [TOPICS.billing],
    // Only the entitlements cache: billing consumes no domain events itself.
    reads: [TOPICS.licensing],
    groups: [],
    groupPrefixes: [entitlementsCacheGroupPrefix('billing')],
  },
  licensing: {
    writes: [TOPICS.licensing],
    reads: [TOPICS.billing],
    groups: [CONSUMER_GROUPS.licensing],
    groupPrefixes: [],
  },
  notifier: {
    // No outbox: the notifier only reads (audit log and DMs from every domain event).
    writes: [],
    reads: ALL_TOPICS,
    groups: [CONSUMER_GROUPS.notifier],
    groupPrefixes: [],
  },
};

/** One allow rule, in the shape of a Strimzi KafkaUser `acls` entry and of Kafka's own ACLs. */
export interface KafkaAclRule {
  resource: { type: 'topic' | 'group'; name: string; patternType: 'literal' | 'prefix' };
  operations: readonly ('Read' | 'Write' | 'Describe')[];
}

/**
 * The allow rules of a service's Kafka user. Write and Read imply Describe on the broker, which
 * producers and consumers need for metadata; it is listed so an operator reading the ACLs sees it.
 * Write on any topic also covers the idempotent producer's InitProducerId (Kafka >= 2.8).
 */
export function kafkaAclRules(service: KafkaService): KafkaAclRule[] {
  const access = KAFKA_ACCESS[service];
  const topic = (name: string, operations: KafkaAclRule['operations']): KafkaAclRule => ({
    resource: { type: 'topic', name, patternType: 'literal' },
    operations,
  });
  const group = (name: string, patternType: 'literal' | 'prefix'): KafkaAclRule => ({
    resource: { type: 'group', name, patternType },
    operations: ['Read', 'Describe'],
  });
  return [
    ...access.writes.map((name) => topic(name, ['Write', 'Describe'])),
    ...access.reads.map((name) => topic(name, ['Read', 'Describe'])),
    ...access.groups.map((name) => group(name, 'literal')),
    ...access.groupPrefixes.map((name) => group(name, 'prefix')),
  ];
}
