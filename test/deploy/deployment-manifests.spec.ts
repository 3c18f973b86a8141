import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ALL_TOPICS } from '@lib/contracts';
import { TOPIC_PARTITIONS } from '@lib/messaging';
import {
  APP_ENVS,
  declaredVariables,
  healthPaths,
  invalidVariables,
  nestApplications,
  PUBLIC_ROUTES,
  requiredVariables,
  routeUnder,
} from './app-surface';
import {
  type ComposeService,
  composeEnvironment,
  type ConfigMap,
  type Container,
  type Deployment,
  type HorizontalPodAutoscaler,
  type Ingress,
  INTERPOLATION,
  type Job,
  type K8sObject,
  type KafkaTopic,
  kustomizeResources,
  type NetworkPolicy,
  ofKind,
  type PodDisruptionBudget,
  type PolicyPeer,
  readCompose,
  readKustomization,
  readYaml,
  ROOT,
  type Service,
} from './manifest-files';

/**
 * The deployment (Dockerfile, docker-compose.yml, k8s/) checked against the code: the config each
 * app validates at boot, the routes it serves, the topics it uses.
 */

/** One deployable unit: an app, or one role of recovery. Named alike in Compose and k8s. */
interface Unit {
  name: string;
  app: string;
  /** Variables that make the role, set as literals. */
  role?: Record<string, string>;
}

const UNITS: Unit[] = [
  { name: 'gateway', app: 'gateway' },
  { name: 'recovery-api', app: 'recovery', role: { RECOVERY_ROLE: 'api' } },
  { name: 'recovery-worker', app: 'recovery', role: { RECOVERY_ROLE: 'worker' } },
  { name: 'recovery-live-sync', app: 'recovery', role: { RECOVERY_ROLE: 'api', LIVE_SYNC_ENABLED: 'true' } },
  { name: 'billing', app: 'billing' },
  { name: 'licensing', app: 'licensing' },
  { name: 'notifier', app: 'notifier' },
  { name: 'webhook-intake', app: 'webhook-intake' },
];

/** Variables that say what a pod is rather than configure it: k8s sets them as literals. */
const STRUCTURAL = new Set(['PORT', 'RECOVERY_ROLE', 'LIVE_SYNC_ENABLED']);
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|PWD|KEY/;
const SECRET_OBJECT = 'guildkeeper-secrets';
const CONFIG_OBJECT = 'guildkeeper-config';
/** The only credentials docker-compose.yml may spell out: the throwaway local Postgres's. */
const COMPOSE_DEV_PLACEHOLDERS: Record<string, string> = {
  POSTGRES_PASSWORD: 'postgres',
  POSTGRES_PWD: 'postgres',
};
const COMPOSE_DEV_URL_CREDENTIALS: Record<string, string> = { DATABASE_URL: 'postgres:postgres' };
const URL_CREDENTIALS = /^[a-z][a-z0-9+.-]*:\/\/([^/@\s]+)@/i;
const INGRESS_NAMESPACE = 'ingress-nginx';
const MONITORING_NAMESPACE = 'monitoring';
const OVERLAYS = ['k8s/overlays/dev', 'k8s/overlays/prod'];

const health = healthPaths();
const compose = readCompose();
const base = kustomizeResources('k8s/base').map(({ object }) => object);
const deployments = ofKind<Deployment>(base, 'Deployment');
const services = ofKind<Service>(base, 'Service');
const [config] = ofKind<ConfigMap>(base, 'ConfigMap').filter((map) => map.metadata.name === CONFIG_OBJECT);

function deploymentOf(unit: Unit): Deployment {
  const found = deployments.find((deployment) => deployment.metadata.name === unit.name);
  if (!found) throw new Error(`no Deployment ${unit.name} in k8s/base`);
  return found;
}

function containerOf(workload: Deployment | Job): Container {
  const { containers } = workload.spec.template.spec;
  expect(containers).toHaveLength(1);
  return containers[0];
}

function composeServiceOf(unit: Unit): ComposeService {
  const found = compose.services[unit.name];
  if (!found) throw new Error(`no service ${unit.name} in docker-compose.yml`);
  return found;
}

function selects(selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  return Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);
}

function podLabels(unit: Unit): Record<string, string> {
  return deploymentOf(unit).spec.template.metadata.labels;
}

/** The unit whose pods a Service sends traffic to (exactly one). */
function unitBehind(service: Service): Unit {
  const matching = UNITS.filter((unit) => selects(service.spec.selector, podLabels(unit)));
  expect(matching).toHaveLength(1);
  return matching[0];
}

/** A container's variables with ConfigMap references resolved; secrets are only named. */
function k8sEnvironment(container: Container, data: Record<string, string>) {
  const values: Record<string, string> = {};
  const fromSecret = new Set<string>();
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined) values[entry.name] = entry.value;
    else if (entry.valueFrom?.configMapKeyRef) values[entry.name] = data[entry.valueFrom.configMapKeyRef.key];
    else if (entry.valueFrom?.secretKeyRef) fromSecret.add(entry.name);
  }
  return { values, fromSecret, names: new Set([...Object.keys(values), ...fromSecret]) };
}

function containerPort(container: Container, port: number | string): number | undefined {
  return typeof port === 'number'
    ? port
    : container.ports?.find((candidate) => candidate.name === port)?.containerPort;
}

function isTrue(value: string | undefined): boolean {
  return value === 'true' || value === '1';
}

/** Overlay ConfigMap patches merged over the base data, as kustomize's strategic merge does. */
function overlayConfigData(overlay: string): Record<string, string> {
  const patches = (readKustomization(overlay).patches ?? [])
    .filter((patch) => patch.path)
    .flatMap((patch) => readYaml(path.join(overlay, patch.path!)) as ConfigMap[])
    .filter((object) => object.kind === 'ConfigMap' && object.metadata.name === CONFIG_OBJECT);
  return Object.assign({}, config.data, ...patches.map((patch) => patch.data ?? {})) as Record<
    string,
    string
  >;
}

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

describe('deployment manifests', () => {
  it('cover every app of the monorepo, recovery as api, worker and live sync', () => {
    const apps = nestApplications().sort();
    expect(Object.keys(APP_ENVS).sort()).toEqual(apps);
    expect([...new Set(UNITS.map((unit) => unit.app))].sort()).toEqual(apps);
    expect(UNITS.filter((unit) => unit.role?.RECOVERY_ROLE === 'api').length).toBeGreaterThan(0);
    expect(UNITS.filter((unit) => unit.role?.RECOVERY_ROLE === 'worker').length).toBeGreaterThan(0);
    for (const unit of UNITS) {
      expect(deploymentOf(unit)).toBeDefined();
      expect(composeServiceOf(unit)).toBeDefined();
    }
    expect(deployments.map((deployment) => deployment.metadata.name).sort()).toEqual(
      UNITS.map((unit) => unit.name).sort(),
    );
  });

  describe.each(UNITS)('$name', (unit) => {
    const env = APP_ENVS[unit.app];
    const declared = declaredVariables(env);

    it('gets every variable its config validator requires, in Compose and in k8s', () => {
      const required = [...requiredVariables(env)];
      expect(required.length).toBeGreaterThan(0);
      const composed = composeEnvironment(composeServiceOf(unit));
      const k8s = k8sEnvironment(containerOf(deploymentOf(unit)), config.data ?? {});
      for (const name of required) {
        expect({ compose: name, provided: name in composed.raw }).toEqual({ compose: name, provided: true });
        expect({ k8s: name, provided: k8s.names.has(name) }).toEqual({ k8s: name, provided: true });
      }
    });

    it('sets only variables the app reads, with values its validator accepts', () => {
      const composed = composeEnvironment(composeServiceOf(unit));
      const container = containerOf(deploymentOf(unit));
      const k8s = k8sEnvironment(container, config.data ?? {});
      expect(container.envFrom).toBeUndefined();
      for (const names of [Object.keys(composed.raw), [...k8s.names]]) {
        expect(names.filter((name) => !declared.has(name))).toEqual([]);
      }
      // Literal settings must pass as they are; secrets and operator-supplied values are unknown here.
      for (const values of [composed.values, k8s.values]) {
        const invalid = [...invalidVariables(env, values)].filter((name) => name in values);
        expect(invalid).toEqual([]);
      }
      for (const [name, value] of Object.entries(unit.role ?? {})) {
        expect(composed.values[name]).toBe(value);
        expect(k8s.values[name]).toBe(value);
      }
      // In k8s every setting comes from the ConfigMap or the Secret, except what makes the role.
      for (const entry of container.env ?? []) {
        if (entry.value !== undefined) expect([...STRUCTURAL]).toContain(entry.name);
        const ref = entry.valueFrom?.configMapKeyRef ?? entry.valueFrom?.secretKeyRef;
        if (ref) expect(ref.key).toBe(entry.name);
        if (entry.valueFrom?.configMapKeyRef) {
          expect(entry.valueFrom.configMapKeyRef.name).toBe(CONFIG_OBJECT);
          expect(Object.keys(config.data ?? {})).toContain(entry.name);
        }
      }
    });

    it(`is probed on ${health.ready} and ${health.live} at the PORT it listens on`, () => {
      const deployment = deploymentOf(unit);
      const container = containerOf(deployment);
      const port = Number(k8sEnvironment(container, {}).values.PORT);
      expect(Number.isInteger(port)).toBe(true);
      expect(container.ports?.map((candidate) => candidate.containerPort)).toEqual([port]);
      const probes = [
        [container.readinessProbe, health.ready],
        [container.livenessProbe, health.live],
        [container.startupProbe, health.live],
      ] as const;
      for (const [probe, expected] of probes) {
        expect(probe?.httpGet?.path).toBe(expected);
        expect(containerPort(container, probe!.httpGet!.port)).toBe(port);
      }
      const service = services.find((candidate) => candidate.metadata.name === unit.name);
      expect(service).toBeDefined();
      expect(unitBehind(service!)).toBe(unit);
      for (const servicePort of service!.spec.ports) {
        expect(servicePort.port).toBe(port);
        expect(containerPort(container, servicePort.targetPort)).toBe(port);
      }

      const composed = composeServiceOf(unit);
      const composePort = composeEnvironment(composed).values.PORT;
      expect(composePort).toBe(String(port));
      const check = ([] as string[]).concat(composed.healthcheck?.test ?? []).join(' ');
      expect(check).toContain(health.ready);
      expect(check).toContain('process.env.PORT');
      for (const published of composed.ports ?? []) {
        expect(published.split(':').at(-1)).toBe(composePort);
      }
    });

    it('runs the image of its app, after the migrations', () => {
      const container = containerOf(deploymentOf(unit));
      expect(container.image).toBe(`guildkeeper/${unit.app}`);
      const composed = composeServiceOf(unit);
      expect(composed.build?.args?.APP).toBe(unit.app);
      expect(composed.image).toMatch(new RegExp(`^guildkeeper/${unit.app}:`));
      expect(composed.depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
      for (const [dependency, { condition }] of Object.entries(composed.depends_on ?? {})) {
        expect(compose.services[dependency]).toBeDefined();
        if (condition === 'service_healthy') expect(compose.services[dependency].healthcheck).toBeDefined();
      }
    });

    it('has CPU and memory requests and limits', () => {
      const { resources } = containerOf(deploymentOf(unit));
      for (const bound of [resources?.requests, resources?.limits]) {
        expect(bound?.cpu).toBeDefined();
        expect(bound?.memory).toBeDefined();
      }
    });
  });

  it('runs live sync on exactly one replica, never rolled over or autoscaled', () => {
    const liveSync = UNITS.filter((unit) => isTrue(unit.role?.LIVE_SYNC_ENABLED));
    expect(liveSync).toHaveLength(1);
    const [unit] = liveSync;
    const composed = Object.entries(compose.services).filter(([, service]) =>
      isTrue(composeEnvironment(service).values.LIVE_SYNC_ENABLED),
    );
    expect(composed.map(([name]) => name)).toEqual([unit.name]);
    const inK8s = deployments.filter((deployment) =>
      isTrue(k8sEnvironment(containerOf(deployment), config.data ?? {}).values.LIVE_SYNC_ENABLED),
    );
    expect(inK8s.map((deployment) => deployment.metadata.name)).toEqual([unit.name]);
    const deployment = deploymentOf(unit);
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy?.type).toBe('Recreate');
    const autoscalers = ofKind<HorizontalPodAutoscaler>(base, 'HorizontalPodAutoscaler');
    expect(autoscalers.map((hpa) => hpa.spec.scaleTargetRef.name)).not.toContain(unit.name);
    for (const overlay of OVERLAYS) {
      const kustomization = readKustomization(overlay);
      expect((kustomization.replicas ?? []).map((entry) => entry.name)).not.toContain(unit.name);
      for (const patch of kustomization.patches ?? []) {
        const reaches = !patch.target?.name || patch.target.name === unit.name;
        if (patch.patch && reaches && patch.target?.kind === 'Deployment') {
          expect(patch.patch).not.toContain('/spec/replicas');
        }
      }
    }
  });

  it('autoscales every other Deployment and gives it a disruption budget', () => {
    const autoscalers = ofKind<HorizontalPodAutoscaler>(base, 'HorizontalPodAutoscaler');
    const budgets = ofKind<PodDisruptionBudget>(base, 'PodDisruptionBudget');
    for (const deployment of deployments) {
      const scaled = autoscalers.filter((hpa) => hpa.spec.scaleTargetRef.name === deployment.metadata.name);
      if (deployment.spec.replicas !== undefined) {
        expect(scaled).toEqual([]);
        continue;
      }
      expect(scaled).toHaveLength(1);
      expect(scaled[0].spec.scaleTargetRef.kind).toBe('Deployment');
      expect(scaled[0].spec.minReplicas).toBeGreaterThanOrEqual(2);
      const labels = deployment.spec.template.metadata.labels;
      expect(budgets.filter((pdb) => selects(pdb.spec.selector.matchLabels, labels))).toHaveLength(1);
    }
  });

  it('points every service URL at the Service and port of the app it names', () => {
    const urlVariables = new Set(
      Object.values(APP_ENVS).flatMap((env) =>
        [...declaredVariables(env)].filter((name) => name.endsWith('_URL')),
      ),
    );
    const internalApp = (name: string) => {
      const app = name.replace(/_URL$/, '').toLowerCase().replace(/_/g, '-');
      return app in APP_ENVS ? app : undefined;
    };
    for (const name of urlVariables) {
      const app = internalApp(name);
      if (!app) continue;
      const url = new URL(config.data![name]);
      const service = services.find((candidate) => candidate.metadata.name === url.hostname);
      expect({ name, service: service?.metadata.name }).toEqual({ name, service: url.hostname });
      const target = unitBehind(service!);
      expect(target.app).toBe(app);
      expect(isTrue(target.role?.LIVE_SYNC_ENABLED)).toBe(false);
      expect(service!.spec.ports.map((port) => port.port)).toContain(Number(url.port));

      for (const [serviceName, composed] of Object.entries(compose.services)) {
        const value = composeEnvironment(composed).values[name];
        if (value === undefined) continue;
        const composeUrl = new URL(value);
        const callee = UNITS.find((unit) => unit.name === composeUrl.hostname);
        expect({ serviceName, name, callee: callee?.app }).toEqual({ serviceName, name, callee: app });
        expect(composeEnvironment(composeServiceOf(callee!)).values.PORT).toBe(composeUrl.port);
      }
    }
  });

  it('commits no secret: k8s references the Secret by name, Compose takes secrets from the environment', () => {
    const everything = yamlFilesUnder('k8s').flatMap((file) => readYaml(file) as K8sObject[]);
    expect(everything.filter((object) => object.kind === 'Secret')).toEqual([]);
    for (const map of ofKind<ConfigMap>(everything, 'ConfigMap')) {
      for (const [key, value] of Object.entries(map.data ?? {})) {
        expect({ key, secretLike: SECRET_NAME.test(key) }).toEqual({ key, secretLike: false });
        expect({ key, credentials: URL_CREDENTIALS.test(value) }).toEqual({ key, credentials: false });
      }
    }
    const header = readFileSync(path.join(ROOT, 'k8s/base/config.yaml'), 'utf8');
    const workloads = [...deployments, ...ofKind<Job>(base, 'Job')];
    for (const container of workloads.map(containerOf)) {
      for (const entry of container.env ?? []) {
        const secret = entry.valueFrom?.secretKeyRef;
        if (SECRET_NAME.test(entry.name)) expect({ name: entry.name, secret }).toHaveProperty('secret.name');
        if (!secret) continue;
        expect(secret.name).toBe(SECRET_OBJECT);
        // Operators create the Secret from the keys documented in config.yaml.
        expect(header).toContain(secret.key);
      }
    }

    const composeText = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
    // Compose interpolates the whole file even for `up postgres`: a required variable would stop
    // scripts/infra.sh on a machine that has no app credentials.
    expect(composeText).not.toMatch(/\$\{[^}]*:?\?/);
    for (const [serviceName, service] of Object.entries(compose.services)) {
      for (const [name, value] of Object.entries(composeEnvironment(service).raw)) {
        const credentials = URL_CREDENTIALS.exec(value)?.[1];
        if (credentials !== undefined) {
          expect({ serviceName, name, credentials }).toEqual({
            serviceName,
            name,
            credentials: COMPOSE_DEV_URL_CREDENTIALS[name],
          });
        }
        if (!SECRET_NAME.test(name)) continue;
        if (name in COMPOSE_DEV_PLACEHOLDERS) {
          expect(value).toBe(COMPOSE_DEV_PLACEHOLDERS[name]);
          continue;
        }
        const interpolated = INTERPOLATION.exec(value);
        expect({ serviceName, name, from: interpolated?.[1], fallback: interpolated?.[2] ?? '' }).toEqual({
          serviceName,
          name,
          from: name,
          fallback: '',
        });
      }
    }
  });

  it('migrates every schema in a Job and a Compose service before the apps start', () => {
    const jobs = ofKind<Job>(base, 'Job');
    expect(jobs).toHaveLength(1);
    expect(jobs[0].metadata.labels?.['app.kubernetes.io/component']).toBe('migration');
    const container = containerOf(jobs[0]);
    expect(container.command).toEqual(['node', 'dist/scripts/migrate.js']);
    expect(['Never', 'OnFailure']).toContain(jobs[0].spec.template.spec.restartPolicy);
    expect(container.image).toMatch(/^guildkeeper\//);
    // Only the Secret, so that the Job can be applied and run before the rest of a release.
    expect(container.env).toEqual([
      { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: SECRET_OBJECT, key: 'DATABASE_URL' } } },
    ]);
    expect(compose.services.migrate.command).toEqual(container.command);
    // dist/scripts/migrate.js is the compiled scripts/migrate.ts (`npm run migrate`).
    const build = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      include: string[];
    };
    expect(build.include).toContain('scripts/migrate.ts');
    const scripts = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(scripts.migrate).toContain('scripts/migrate.ts');
  });

  it('routes every public route to its app through the ingress, and nothing else', () => {
    const [ingress] = ofKind<Ingress>(base, 'Ingress');
    const paths = ingress.spec.rules.flatMap((rule) => rule.http.paths);
    const appOf = (serviceName: string) => {
      const service = services.find((candidate) => candidate.metadata.name === serviceName);
      expect(service).toBeDefined();
      return unitBehind(service!).app;
    };
    for (const [app, routes] of Object.entries(PUBLIC_ROUTES)) {
      expect(routes.length).toBeGreaterThan(0);
      for (const route of routes) {
        const routed = paths.filter(
          (entry) =>
            routeUnder(route, entry.path, entry.pathType) && appOf(entry.backend.service.name) === app,
        );
        expect({ route, routed: routed.length > 0 }).toEqual({ route, routed: true });
      }
    }
    for (const entry of paths) {
      const app = appOf(entry.backend.service.name);
      const served = (PUBLIC_ROUTES[app] ?? []).some((route) =>
        routeUnder(route, entry.path, entry.pathType),
      );
      expect({ path: entry.path, served }).toEqual({ path: entry.path, served: true });
      for (const internal of ['/internal', '/admin', health.live, health.ready, '/metrics']) {
        expect(routeUnder(internal, entry.path, entry.pathType)).toBe(false);
      }
    }
    expect(paths.map((entry) => entry.path)).toEqual(expect.arrayContaining(['/api', '/auth', '/docs']));
  });

  it('declares every domain topic as a KafkaTopic of the cluster the apps connect to', () => {
    const topics = ofKind<KafkaTopic>(base, 'KafkaTopic');
    expect(topics.map((topic) => topic.spec.topicName ?? topic.metadata.name).sort()).toEqual(
      [...ALL_TOPICS].sort(),
    );
    for (const topic of topics) {
      expect(topic.apiVersion).toMatch(/^kafka\.strimzi\.io\//);
      expect(topic.spec.partitions).toBeGreaterThanOrEqual(TOPIC_PARTITIONS);
      expect(topic.spec.replicas).toBeGreaterThanOrEqual(1);
      // Applied with the migration Job, before the apps (README, "Deploying").
      expect(topic.metadata.labels?.['app.kubernetes.io/component']).toBe('messaging');
      const cluster = topic.metadata.labels?.['strimzi.io/cluster'];
      expect(config.data?.KAFKA_BROKERS.split(',')[0]).toMatch(
        new RegExp(`^${cluster}-kafka-bootstrap:\\d+$`),
      );
    }
  });

  it('admits traffic only from the gateway, the callers the config names, the ingress and monitoring', () => {
    const policies = ofKind<NetworkPolicy>(base, 'NetworkPolicy');
    const denyAll = policies.filter(
      (policy) =>
        !Object.keys(policy.spec.podSelector.matchLabels ?? {}).length && !policy.spec.ingress?.length,
    );
    expect(denyAll).toHaveLength(1);
    expect(denyAll[0].spec.policyTypes).toContain('Ingress');

    const [ingress] = ofKind<Ingress>(base, 'Ingress');
    const publicServices = new Set(
      ingress.spec.rules.flatMap((rule) => rule.http.paths.map((entry) => entry.backend.service.name)),
    );
    // A calls B when A's config declares the URL variable whose Service is B's.
    const callers = (callee: Unit) =>
      UNITS.filter((caller) =>
        [...declaredVariables(APP_ENVS[caller.app])].some((name) => {
          const value = name.endsWith('_URL') ? config.data?.[name] : undefined;
          return value !== undefined && URL.canParse(value) && new URL(value).hostname === callee.name;
        }),
      ).map((caller) => caller.name);

    for (const unit of UNITS) {
      const labels = podLabels(unit);
      const peers: PolicyPeer[] = [];
      for (const policy of policies.filter((candidate) =>
        selects(candidate.spec.podSelector.matchLabels, labels),
      )) {
        for (const rule of policy.spec.ingress ?? []) {
          expect(rule.from?.length).toBeGreaterThan(0);
          expect(rule.ports?.map((port) => port.port)).toEqual(['http']);
          peers.push(...rule.from!);
        }
      }
      for (const peer of peers) {
        expect(peer.ipBlock).toBeUndefined();
        expect(Boolean(peer.podSelector) !== Boolean(peer.namespaceSelector)).toBe(true);
      }
      const namespaces = peers.flatMap((peer) =>
        peer.namespaceSelector ? [peer.namespaceSelector.matchLabels?.['kubernetes.io/metadata.name']] : [],
      );
      const expectedNamespaces = [
        MONITORING_NAMESPACE,
        ...(publicServices.has(unit.name) ? [INGRESS_NAMESPACE] : []),
      ];
      expect({ unit: unit.name, namespaces: [...new Set(namespaces)].sort() }).toEqual({
        unit: unit.name,
        namespaces: expectedNamespaces.sort(),
      });
      const admitted = UNITS.filter((other) =>
        peers.some((peer) => peer.podSelector && selects(peer.podSelector.matchLabels, podLabels(other))),
      ).map((other) => other.name);
      expect({ unit: unit.name, admitted: admitted.sort() }).toEqual({
        unit: unit.name,
        admitted: callers(unit).sort(),
      });
    }
    expect(callers(UNITS.find((unit) => unit.name === 'recovery-api')!)).toContain('gateway');
  });

  it('keeps the infrastructure services scripts/infra.sh starts with Compose', () => {
    const infra = readFileSync(path.join(ROOT, 'scripts/infra.sh'), 'utf8');
    const started = /for svc in ([a-z -]+); do/.exec(infra)?.[1].trim().split(/\s+/) ?? [];
    expect(started).toEqual(['postgres', 'redis', 'kafka', 'temporal']);
    for (const name of started) {
      const service = compose.services[name];
      expect(service?.healthcheck).toBeDefined();
      expect(service.ports?.some((port) => port.startsWith('127.0.0.1:'))).toBe(true);
    }
    expect(compose.services['temporal-ui']).toBeDefined();
  });

  it('builds one image per app: multi-stage, production dependencies only, unprivileged, workflow bundle', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^ARG APP$/m);
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThan(1);
    expect(dockerfile).toMatch(/--omit=dev/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toContain('scripts/bundle-workflows.ts');
    expect(existsSync(path.join(ROOT, 'scripts/bundle-workflows.ts'))).toBe(true);
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '.git', '.env']));
  });

  describe.each(OVERLAYS)('%s', (overlay) => {
    const kustomization = readKustomization(overlay);

    it('builds on the base and pins a tag for every image', () => {
      expect(kustomization.resources).toEqual(['../../base']);
      const images = new Set(
        [...deployments, ...ofKind<Job>(base, 'Job')].map((workload) => containerOf(workload).image),
      );
      for (const image of images) {
        const pinned = kustomization.images?.find((entry) => entry.name === image);
        expect({ image, tag: pinned?.newTag && pinned.newTag !== 'latest' }).toEqual({ image, tag: true });
      }
    });

    it('patches only objects of the base', () => {
      for (const patch of kustomization.patches ?? []) {
        const targets = patch.path
          ? (readYaml(path.join(overlay, patch.path)) as K8sObject[]).map((object) => ({
              kind: object.kind,
              name: object.metadata.name,
            }))
          : [patch.target ?? {}];
        for (const target of targets) {
          const matching = base.filter(
            (object) => object.kind === target.kind && (!target.name || object.metadata.name === target.name),
          );
          expect({ target, found: matching.length > 0 }).toEqual({ target, found: true });
        }
      }
    });

    it('gives every app settings its validator accepts', () => {
      const data = overlayConfigData(overlay);
      for (const unit of UNITS) {
        const { values } = k8sEnvironment(containerOf(deploymentOf(unit)), data);
        const invalid = [...invalidVariables(APP_ENVS[unit.app], values)].filter((name) => name in values);
        expect({ unit: unit.name, invalid }).toEqual({ unit: unit.name, invalid: [] });
      }
    });
  });
});

/**
 * Schema validation against the Kubernetes OpenAPI definitions, offline, through the
 * `kubernetes-models` package. CRDs (Strimzi's KafkaTopic) are checked structurally above instead.
 */
const loadModel = createRequire(__filename);

interface ModelClass {
  new (data: object): { validate(): void };
}

describe('k8s schemas (kubernetes-models)', () => {
  const files = [
    ...kustomizeResources('k8s/base'),
    ...OVERLAYS.flatMap((overlay) =>
      (readKustomization(overlay).patches ?? [])
        .filter((patch) => patch.path)
        .flatMap((patch) => {
          const file = path.join(overlay, patch.path!);
          return readYaml(file).map((object) => ({ file, object: object as K8sObject }));
        }),
    ),
  ];
  const builtIn = files.filter(({ object }) => !object.apiVersion.includes('strimzi.io'));

  it.each(builtIn.map(({ file, object }) => [`${file}: ${object.kind} ${object.metadata.name}`, object]))(
    '%s',
    (_name, object) => {
      const module = loadModel(`kubernetes-models/${object.apiVersion}/${object.kind}`) as Record<
        string,
        ModelClass
      >;
      const Model = module[object.kind];
      expect(() => new Model(object).validate()).not.toThrow();
    },
  );
});
