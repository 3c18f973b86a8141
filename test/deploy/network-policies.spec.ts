import { APP_ENVS, declaredVariables } from './app-surface';
import {
  base,
  config,
  containerOf,
  defaultDenyPolicies,
  deploymentOf,
  jobs,
  podLabels,
  selects,
  services,
  type Unit,
  unitBehind,
  UNITS,
} from './deployment-units';
import { type NetworkPolicy, ofKind, type PolicyPeer, type PolicyPort } from './manifest-files';

/**
 * Egress: every pod may open connections only to what its app's config class says it calls, and
 * the migration Job only to Postgres. Derived from the code: DATABASE_URL (Postgres), REDIS_URL,
 * KAFKA_BROKERS, TEMPORAL_ADDRESS, the *_URL settings naming a sibling's Service, and the chat
 * platform's and payment provider's URLs (DISCORD_*_URL, PROVIDER_*_URL: HTTPS outside the
 * cluster). Name resolution (kube-dns) for everyone. Nothing missing, nothing extra.
 */

/** Where the infrastructure runs, as network-policies.yaml assumes it (overlays may patch). */
const INFRA_PEERS: Record<string, Record<string, string>> = {
  postgres: { 'app.kubernetes.io/name': 'postgresql' },
  redis: { 'app.kubernetes.io/name': 'redis' },
  temporal: { 'app.kubernetes.io/name': 'temporal', 'app.kubernetes.io/component': 'frontend' },
};
const POSTGRES_PORT = 5432;
const REDIS_PORT = 6379;
const HTTPS_PORT = 443;
const EXTERNAL_API = /^(DISCORD|PROVIDER)_\w*_URL$/;
/** Addresses a pod must not reach as "outside the cluster": private, shared and link-local. */
const NOT_OUTSIDE_V4 = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16'];
const NOT_OUTSIDE_V6 = ['fc00::/7', 'fe80::/10'];
const KUBE_DNS = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };

const policies = ofKind<NetworkPolicy>(base, 'NetworkPolicy');
const kafkaBootstrap = config.data!.KAFKA_BROKERS.split(',')[0];
const kafkaCluster = /^(.+)-kafka-bootstrap:\d+$/.exec(kafkaBootstrap)?.[1];
const kafkaPeer = {
  'strimzi.io/cluster': kafkaCluster!,
  'strimzi.io/kind': 'Kafka',
  'strimzi.io/broker-role': 'true',
};

function portOf(hostAndPort: string): number {
  return Number(hostAndPort.split(':').at(-1));
}

/** What the app's config says the unit calls, as `destination:port` names. */
function expectedDestinations(unit: Unit): string[] {
  const env = APP_ENVS[unit.app];
  const declared = declaredVariables(env);
  const defaults = new env() as Record<string, unknown>;
  const wanted = ['dns'];
  if (declared.has('DATABASE_URL')) wanted.push(`postgres:${POSTGRES_PORT}`);
  if (declared.has('REDIS_URL')) wanted.push(`redis:${REDIS_PORT}`);
  if (declared.has('KAFKA_BROKERS')) wanted.push(`kafka:${portOf(kafkaBootstrap)}`);
  if (declared.has('TEMPORAL_ADDRESS')) wanted.push(`temporal:${portOf(config.data!.TEMPORAL_ADDRESS)}`);
  for (const name of declared) {
    if (!name.endsWith('_URL')) continue;
    const value = config.data?.[name] ?? defaults[name];
    if (typeof value !== 'string' || !URL.canParse(value)) continue;
    const url = new URL(value);
    const service = services.find((candidate) => candidate.metadata.name === url.hostname);
    if (service) {
      // NetworkPolicies see the pod's port, not the Service's.
      const target = unitBehind(service);
      const [servicePort] = service.spec.ports;
      const port = containerOf(deploymentOf(target)).ports?.find(
        (candidate) =>
          candidate.name === servicePort.targetPort || candidate.containerPort === servicePort.targetPort,
      )?.containerPort;
      wanted.push(`${target.name}:${port}`);
    } else if (EXTERNAL_API.test(name)) {
      expect({ name, protocol: url.protocol, port: url.port }).toEqual({
        name,
        protocol: 'https:',
        port: '',
      });
      wanted.push(`outside:${HTTPS_PORT}`);
    }
  }
  return [...new Set(wanted)].sort();
}

function sameSet(actual: string[] | undefined, expected: string[]): boolean {
  return JSON.stringify([...(actual ?? [])].sort()) === JSON.stringify([...expected].sort());
}

/** What one egress peer is: a unit, a piece of infrastructure, DNS, outside, or unknown. */
function peerName(peer: PolicyPeer): string[] {
  const labels = peer.podSelector?.matchLabels ?? {};
  const namespace = peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
  if (peer.ipBlock) {
    const { cidr, except } = peer.ipBlock;
    if (cidr === '0.0.0.0/0' && sameSet(except, NOT_OUTSIDE_V4)) return ['outside'];
    if (cidr === '::/0' && sameSet(except, NOT_OUTSIDE_V6)) return ['outside'];
    return [`ipBlock ${cidr} except ${except?.join(',')}`];
  }
  if (peer.namespaceSelector) {
    const isDns = namespace === KUBE_DNS.namespace && sameSet(Object.keys(labels), ['k8s-app']);
    return [isDns && labels['k8s-app'] === KUBE_DNS.labels['k8s-app'] ? 'dns' : `namespace ${namespace}`];
  }
  // A pod selector in this namespace: the units it admits (all of them), or the infrastructure.
  const units = UNITS.filter((unit) => selects(labels, podLabels(unit))).map((unit) => unit.name);
  if (units.length) return units;
  for (const [name, expected] of Object.entries({ ...INFRA_PEERS, kafka: kafkaPeer })) {
    if (sameSet(Object.entries(labels).map(String), Object.entries(expected).map(String))) return [name];
  }
  return [`pods ${JSON.stringify(labels)}`];
}

/** Where the policies let pods with these labels connect, as `destination:port` names. */
function allowedDestinations(labels: Record<string, string>): string[] {
  const allowed: string[] = [];
  const applying = policies.filter(
    (policy) =>
      policy.spec.policyTypes?.includes('Egress') && selects(policy.spec.podSelector.matchLabels, labels),
  );
  for (const rule of applying.flatMap((policy) => policy.spec.egress ?? [])) {
    // A rule without peers or ports admits everything or every port: never wanted here.
    expect(rule.to?.length).toBeGreaterThan(0);
    expect(rule.ports?.length).toBeGreaterThan(0);
    for (const name of rule.to!.flatMap(peerName)) {
      const ports = rule.ports!;
      if (name === 'dns') {
        expect(ports.map((port: PolicyPort) => `${port.protocol}/${port.port}`).sort()).toEqual([
          'TCP/53',
          'UDP/53',
        ]);
        allowed.push('dns');
        continue;
      }
      for (const port of ports) {
        expect({ name, protocol: port.protocol ?? 'TCP', endPort: port.endPort }).toEqual({
          name,
          protocol: 'TCP',
          endPort: undefined,
        });
        allowed.push(`${name}:${port.port}`);
      }
    }
  }
  return [...new Set(allowed)].sort();
}

describe('egress NetworkPolicies', () => {
  it('deny every connection out of the namespace that is not admitted', () => {
    const denyAll = defaultDenyPolicies('Egress');
    expect(denyAll).toHaveLength(1);
    // No policy opens egress to every pod of the namespace.
    for (const policy of policies.filter((candidate) => candidate.spec.egress?.length)) {
      expect(Object.keys(policy.spec.podSelector.matchLabels ?? {}).length).toBeGreaterThan(0);
    }
  });

  it.each(UNITS.map((unit) => [unit.name, unit] as const))(
    'let %s reach exactly what its config calls',
    (_name, unit) => {
      expect(allowedDestinations(podLabels(unit))).toEqual(expectedDestinations(unit));
    },
  );

  it('let the migration Job reach Postgres and DNS only', () => {
    expect(jobs).toHaveLength(1);
    expect(allowedDestinations(jobs[0].spec.template.metadata.labels)).toEqual(
      ['dns', `postgres:${POSTGRES_PORT}`].sort(),
    );
  });

  it('let HTTPS out only to the apps that call the chat platform or the payment provider', () => {
    // The derivation above, pinned to what the config classes say today.
    const outside = UNITS.filter((unit) => expectedDestinations(unit).includes(`outside:${HTTPS_PORT}`));
    expect([...new Set(outside.map((unit) => unit.app))].sort()).toEqual([
      'billing',
      'gateway',
      'notifier',
      'recovery',
    ]);
  });
});
