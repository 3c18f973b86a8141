import {
  type ComposeService,
  composeEnvironment,
  type ConfigMap,
  type Container,
  type Deployment,
  type Job,
  kustomizeResources,
  type NetworkPolicy,
  ofKind,
  type PodTemplate,
  readCompose,
  type Service,
} from './manifest-files';

/** The deployable units of docker-compose.yml and k8s/base, and how to look each one up. */

/** One deployable unit: an app, or one role of recovery. Named alike in Compose and k8s. */
export interface Unit {
  name: string;
  app: string;
  /** Variables that make the role, set as literals. */
  role?: Record<string, string>;
}

export const UNITS: Unit[] = [
  { name: 'gateway', app: 'gateway' },
  { name: 'recovery-api', app: 'recovery', role: { RECOVERY_ROLE: 'api' } },
  { name: 'recovery-worker', app: 'recovery', role: { RECOVERY_ROLE: 'worker' } },
  { name: 'recovery-live-sync', app: 'recovery', role: { RECOVERY_ROLE: 'api', LIVE_SYNC_ENABLED: 'true' } },
  { name: 'billing', app: 'billing' },
  { name: 'licensing', app: 'licensing' },
  { name: 'notifier', app: 'notifier' },
  { name: 'webhook-intake', app: 'webhook-intake' },
];

export const CONFIG_OBJECT = 'guildkeeper-config';
/** INTERNAL_PUBLIC_KEYS: not secret, but per environment, so created out of band like the Secrets. */
export const PUBLIC_KEYS_OBJECT = 'guildkeeper-internal-keys';
/** The migration Job's Secret (the admin DATABASE_URL). */
export const MIGRATION_SECRET = 'guildkeeper-migrate';

/** The Secret that holds an app's own credentials; no other app's pods reference it. */
export function appSecret(app: string): string {
  return `guildkeeper-${app}`;
}

/** `webhook-intake` -> `WEBHOOK_INTAKE`: the prefix of an app's own variables (`npm run keys`). */
export function envPrefix(app: string): string {
  return app.toUpperCase().replace(/-/g, '_');
}

export const compose = readCompose();
export const base = kustomizeResources('k8s/base').map(({ object }) => object);
export const deployments = ofKind<Deployment>(base, 'Deployment');
export const jobs = ofKind<Job>(base, 'Job');
export const services = ofKind<Service>(base, 'Service');
export const [config] = ofKind<ConfigMap>(base, 'ConfigMap').filter(
  (map) => map.metadata.name === CONFIG_OBJECT,
);

export function deploymentOf(unit: Unit): Deployment {
  const found = deployments.find((deployment) => deployment.metadata.name === unit.name);
  if (!found) throw new Error(`no Deployment ${unit.name} in k8s/base`);
  return found;
}

export function containerOf(workload: Deployment | Job): Container {
  const { containers } = workload.spec.template.spec;
  expect(containers).toHaveLength(1);
  return containers[0];
}

export function composeServiceOf(unit: Unit): ComposeService {
  const found = compose.services[unit.name];
  if (!found) throw new Error(`no service ${unit.name} in docker-compose.yml`);
  return found;
}

/** Every pod template of the base: the Deployments' and the migration Job's, by workload name. */
export function podTemplates(): { name: string; template: PodTemplate }[] {
  return [...deployments, ...jobs].map((workload) => ({
    name: workload.metadata.name,
    template: workload.spec.template,
  }));
}

export function selects(
  selector: Record<string, string> | undefined,
  labels: Record<string, string>,
): boolean {
  return Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);
}

export function podLabels(unit: Unit): Record<string, string> {
  return deploymentOf(unit).spec.template.metadata.labels;
}

/** The unit whose pods a Service sends traffic to (exactly one). */
export function unitBehind(service: Service): Unit {
  const matching = UNITS.filter((unit) => selects(service.spec.selector, podLabels(unit)));
  expect(matching).toHaveLength(1);
  return matching[0];
}

/**
 * A container's variables with guildkeeper-config references resolved. Values that are not in the
 * repository (Secrets, the out-of-band ConfigMap of public keys) are only named, in `external`.
 */
export function k8sEnvironment(container: Container, data: Record<string, string>) {
  const values: Record<string, string> = {};
  const external = new Set<string>();
  for (const entry of container.env ?? []) {
    const configMap = entry.valueFrom?.configMapKeyRef;
    if (entry.value !== undefined) values[entry.name] = entry.value;
    else if (configMap?.name === CONFIG_OBJECT) values[entry.name] = data[configMap.key];
    else if (configMap || entry.valueFrom?.secretKeyRef) external.add(entry.name);
  }
  return { values, external, names: new Set([...Object.keys(values), ...external]) };
}

/** A unit's environment in Compose and in k8s (base ConfigMap), as the app sees it. */
export function environments(unit: Unit) {
  return {
    compose: composeEnvironment(composeServiceOf(unit)),
    k8s: k8sEnvironment(containerOf(deploymentOf(unit)), config.data ?? {}),
  };
}

/** The policies that select every pod and admit nothing in `direction`: the default deny. */
export function defaultDenyPolicies(direction: 'Ingress' | 'Egress'): NetworkPolicy[] {
  return ofKind<NetworkPolicy>(base, 'NetworkPolicy').filter(
    (policy) =>
      !Object.keys(policy.spec.podSelector.matchLabels ?? {}).length &&
      policy.spec.policyTypes?.includes(direction) &&
      !policy.spec[direction === 'Ingress' ? 'ingress' : 'egress']?.length,
  );
}

export function isTrue(value: string | undefined): boolean {
  return value === 'true' || value === '1';
}
