import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ALL_TOPICS, KAFKA_SERVICES, type KafkaAclRule, kafkaAclRules } from '@lib/contracts';
import { TOPIC_PARTITIONS } from '@lib/messaging';
import { APP_ENVS, declaredVariables } from './app-surface';
import {
  base,
  compose,
  composeServiceOf,
  config,
  containerOf,
  deploymentOf,
  envPrefix,
  environments,
  UNITS,
} from './deployment-units';
import { composeEnvironment, type KafkaUser, ofKind, ROOT } from './manifest-files';

/**
 * Kafka in k8s and Compose against the ACL matrix of libs/contracts/src/kafka-access.ts: one
 * SCRAM-SHA-512 user per app that uses Kafka, with exactly the matrix's ACLs, and every Kafka app
 * logging in as its own user through the authenticated listener.
 */

const MECHANISM = 'scram-sha-512';
const users = ofKind<KafkaUser>(base, 'KafkaUser');
const kafkaApps = Object.keys(APP_ENVS).filter((app) =>
  declaredVariables(APP_ENVS[app]).has('KAFKA_BROKERS'),
);
const kafkaUnits = UNITS.filter((unit) => kafkaApps.includes(unit.app));

/** One line per resource: `<user> <type> <pattern> <name> <operations>` (kafka-init's KAFKA_ACLS). */
function ruleLines(user: string, rules: readonly KafkaAclRule[]): string[] {
  return rules.map(({ resource, operations }) =>
    [
      user,
      resource.type,
      resource.patternType === 'prefix' ? 'prefixed' : resource.patternType,
      resource.name,
      [...operations].sort().join(','),
    ].join(' '),
  );
}

function listenerMap(value: string): Map<string, string> {
  return new Map(value.split(',').map((entry) => entry.split(':') as [string, string]));
}

describe('Kafka users and ACLs', () => {
  it('has a Kafka user for exactly the apps that use Kafka', () => {
    expect([...KAFKA_SERVICES].sort()).toEqual(kafkaApps.sort());
    expect(users.map((user) => user.metadata.name).sort()).toEqual(kafkaApps.sort());
  });

  it.each([...KAFKA_SERVICES])(
    'gives the k8s user %s exactly the matrix ACLs, with SCRAM-SHA-512',
    (service) => {
      const user = users.find((candidate) => candidate.metadata.name === service)!;
      expect(user.apiVersion).toMatch(/^kafka\.strimzi\.io\//);
      const cluster = /^(.+)-kafka-bootstrap:\d+$/.exec(config.data!.KAFKA_BROKERS.split(',')[0])?.[1];
      expect(user.metadata.labels?.['strimzi.io/cluster']).toBe(cluster);
      // Applied with the topics and the migration Job, before the apps that need its Secret.
      expect(user.metadata.labels?.['app.kubernetes.io/component']).toBe('messaging');
      expect(user.spec.authentication).toEqual({ type: MECHANISM });
      expect(user.spec.authorization?.type).toBe('simple');
      const acls = user.spec.authorization?.acls ?? [];
      for (const acl of acls) {
        expect(acl.host ?? '*').toBe('*');
        expect(acl.type ?? 'allow').toBe('allow');
      }
      const actual = acls.map(({ resource, operations }) => ({
        resource: { type: resource.type, name: resource.name, patternType: resource.patternType },
        operations: [...operations].sort(),
      }));
      const expected = kafkaAclRules(service).map(({ resource, operations }) => ({
        resource,
        operations: [...operations].sort(),
      }));
      expect(actual).toEqual(expected);
    },
  );

  it('says in the base that the cluster must authenticate with SCRAM-SHA-512 and authorize with simple ACLs', () => {
    const text = readFileSync(path.join(ROOT, 'k8s/base/kafka-users.yaml'), 'utf8');
    expect(text).toContain(`authentication: { type: ${MECHANISM} }`);
    expect(text).toContain('authorization: { type: simple }');
    const kustomization = readFileSync(path.join(ROOT, 'k8s/base/kustomization.yaml'), 'utf8');
    expect(kustomization).toContain(MECHANISM);
    expect(kustomization).toContain('authorization: { type: simple }');
  });

  describe.each(kafkaUnits.map((unit) => [unit.name, unit] as const))('%s', (name, unit) => {
    it('logs in as its own Kafka user, and creates no topics', () => {
      const { compose: composed, k8s } = environments(unit);
      const container = containerOf(deploymentOf(unit));
      const password = container.env?.find((entry) => entry.name === 'KAFKA_SASL_PASSWORD');
      expect(password?.valueFrom).toEqual({ secretKeyRef: { name: unit.app, key: 'password' } });
      for (const values of [k8s.values, composed.values]) {
        expect({ name, user: values.KAFKA_SASL_USERNAME }).toEqual({ name, user: unit.app });
        expect(values.KAFKA_SASL_MECHANISM).toBe(MECHANISM);
        expect(values.KAFKA_CREATE_TOPICS).toBe('false');
      }
      expect(composed.raw.KAFKA_SASL_PASSWORD).toBe(`\${${envPrefix(unit.app)}_KAFKA_SASL_PASSWORD:-}`);
      expect(composeServiceOf(unit).depends_on?.['kafka-init']).toEqual({
        condition: 'service_completed_successfully',
      });
    });
  });
});

describe('Compose Kafka', () => {
  const kafka = composeEnvironment(compose.services.kafka).values;
  const listeners = new Map(
    kafka.KAFKA_LISTENERS.split(',').map(
      (entry) => /^([A-Z_]+):\/\/(.*)$/.exec(entry)!.slice(1) as [string, string],
    ),
  );
  const advertised = new Map(
    kafka.KAFKA_ADVERTISED_LISTENERS.split(',').map(
      (entry) => /^([A-Z_]+):\/\/(.*)$/.exec(entry)!.slice(1) as [string, string],
    ),
  );
  const protocols = listenerMap(kafka.KAFKA_LISTENER_SECURITY_PROTOCOL_MAP);
  const init = compose.services['kafka-init'];
  const initEnv = composeEnvironment(init);

  it('serves the apps on a SCRAM-SHA-512 listener with ACLs enforced', () => {
    const brokers = new Set(kafkaUnits.map((unit) => environments(unit).compose.values.KAFKA_BROKERS));
    expect(brokers.size).toBe(1);
    const [address] = [...brokers];
    const listener = [...advertised].find(([, value]) => value === address)?.[0];
    expect(listener).toBeDefined();
    expect(protocols.get(listener!)).toBe('SASL_PLAINTEXT');
    expect(kafka[`KAFKA_LISTENER_NAME_${listener}_SASL_ENABLED_MECHANISMS`]).toBe('SCRAM-SHA-512');
    // apache/kafka maps `___` to `-`: listener.name.<listener>.scram-sha-512.sasl.jaas.config.
    expect(kafka[`KAFKA_LISTENER_NAME_${listener}_SCRAM___SHA___512_SASL_JAAS_CONFIG`]).toBe(
      'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    );
    expect(kafka.KAFKA_AUTHORIZER_CLASS_NAME).toBe('org.apache.kafka.metadata.authorizer.StandardAuthorizer');
    expect(kafka.KAFKA_SUPER_USERS).toBeUndefined();
  });

  it('keeps the plaintext listeners on loopback, except the one published for scripts/infra.sh', () => {
    const plaintext = [...protocols].filter(([, protocol]) => protocol === 'PLAINTEXT').map(([name]) => name);
    const published = (compose.services.kafka.ports ?? []).map((port) => port.split(':'));
    expect(published).toHaveLength(1);
    const [[hostAddress, hostPort, containerPort]] = published;
    expect(`${hostAddress}:${hostPort}`).toBe('127.0.0.1:9092');
    const hostListener = [...listeners].find(([, value]) => value === `:${containerPort}`)?.[0];
    expect(protocols.get(hostListener!)).toBe('PLAINTEXT');
    expect(advertised.get(hostListener!)).toBe('127.0.0.1:9092');
    for (const name of plaintext.filter((candidate) => candidate !== hostListener)) {
      expect({ name, address: listeners.get(name)?.split(':')[0] }).toEqual({ name, address: '127.0.0.1' });
    }
    expect(kafka.KAFKA_CONTROLLER_QUORUM_VOTERS).toMatch(/^1@127\.0\.0\.1:\d+$/);
  });

  it('makes the users, their ACLs and the topics from the matrix in a one-shot kafka-init', () => {
    expect(init.network_mode).toBe('service:kafka');
    expect(init.depends_on?.kafka).toEqual({ condition: 'service_healthy' });
    const lines = initEnv.values.KAFKA_ACLS.split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((words) => words.length > 1)
      .map(([user, type, pattern, resource, operations]) =>
        [user, type, pattern, resource, operations.split(',').sort().join(',')].join(' '),
      );
    expect(lines.sort()).toEqual(
      KAFKA_SERVICES.flatMap((service) => ruleLines(service, kafkaAclRules(service))).sort(),
    );
    expect(initEnv.values.KAFKA_TOPICS.split(/\s+/).sort()).toEqual([...ALL_TOPICS].sort());
    expect(Number(initEnv.values.KAFKA_TOPIC_PARTITIONS)).toBeGreaterThanOrEqual(TOPIC_PARTITIONS);
    // Each user's password is the one its app logs in with.
    for (const service of KAFKA_SERVICES) {
      const variable = `${envPrefix(service)}_KAFKA_SASL_PASSWORD`;
      expect(initEnv.raw[variable]).toBe(`\${${variable}:-}`);
    }
    // It talks to the loopback listener, and gives the anonymous principal rights from 127.0.0.1 only.
    const script = (init.entrypoint ?? []).join('\n');
    const internal = [...listeners].find(([name]) => name === kafka.KAFKA_INTER_BROKER_LISTENER_NAME)?.[1];
    expect(internal).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(script).toContain(`server=${internal}`);
    expect(script).toMatch(
      /--allow-principal User:ANONYMOUS \\\n\s+--allow-host 127\.0\.0\.1 --operation All --cluster/,
    );
  });
});
