import { readdirSync, readFileSync } from 'node:fs';
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
  appSecret,
  base,
  CONFIG_OBJECT,
  compose,
  composeServiceOf,
  config,
  containerOf,
  defaultDenyPolicies,
  deploymentOf,
  deployments,
  envPrefix,
  environments,
  isTrue,
  jobs,
  k8sEnvironment,
  MIGRATION_SECRET,
  podLabels,
  PUBLIC_KEYS_OBJECT,
  selects,
  services,
  type Unit,
  unitBehind,
  UNITS,
} from './deployment-units';
import {
  composeEnvironment,
  type ConfigMap,
  type HorizontalPodAutoscaler,
  type Ingress,
  INTERPOLATION,
  type Job,
  type K8sObject,
  type KafkaTopic,
  kustomizeResources,
  type NetworkPolicy,
  ofKind,
  overlayReplicas,
  type PodDisruptionBudget,
  type PolicyPeer,
  readKustomization,
  readYaml,
  ROOT,
} from './manifest-files';
import {
  SERVICE_DATABASES,
  type ServiceName,
  serviceDatabaseUrlVariable,
} from '../../scripts/service-databases';

/**
 * The deployment (docker-compose.yml, k8s/) checked against the code: the config each app
 * validates at boot, the routes it serves, the topics it uses.
 */

/** Variables that say what a pod is rather than configure it: k8s sets them as literals. */
const STRUCTURAL = new Set(['PORT', 'RECOVERY_ROLE', 'LIVE_SYNC_ENABLED', 'KAFKA_SASL_USERNAME']);
const SECRET_NAME = /SECRET|TOKEN|PASSWORD|PWD|KEY/;
/** Secret-like names of values that are public by design: they are handed to everyone. */
const PUBLIC_NAME = /PUBLIC_KEYS?$/;
/** The only credentials docker-compose.yml may spell out: the throwaway local Postgres superuser's. */
const COMPOSE_DEV_PLACEHOLDERS: Record<string, string> = {
  POSTGRES_PASSWORD: 'postgres',
  POSTGRES_PWD: 'postgres',
};
const COMPOSE_ADMIN_DATABASE_URL = 'postgres://postgres:postgres@postgres:5432/guildkeeper';
const URL_CREDENTIALS = /^[a-z][a-z0-9+.-]*:\/\/([^/@\s]+)@/i;
/** `user:${SOME_PASSWORD:-}`: a URL whose password Compose takes from the operator's environment. */
const OPERATOR_URL_CREDENTIALS = /^[a-z0-9_]*:\$\{([A-Z0-9_]+_PASSWORD):-\}$/;
const INGRESS_NAMESPACE = 'ingress-nginx';
const MONITORING_NAMESPACE = 'monitoring';
const OVERLAYS = ['k8s/overlays/dev', 'k8s/overlays/prod'];

const health = healthPaths();

function containerPort(container: ReturnType<typeof containerOf>, port: number | string): number | undefined {
  return typeof port === 'number'
    ? port
    : container.ports?.find((candidate) => candidate.name === port)?.containerPort;
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

/** The Secrets and their keys as the header of k8s/base/config.yaml lists them for operators. */
function documentedSecrets(): Map<string, Set<string>> {
  const comment = readFileSync(path.join(ROOT, 'k8s/base/config.yaml'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('#'))
    .map((line) => line.replace(/^# ?/, ''));
  const keysIn = (text: string) => text.split(/[,\s]+/).filter((word) => /^[A-Z0-9_]+$/.test(word));
  const secrets = new Map<string, Set<string>>();
  let current: string | undefined;
  for (const line of comment) {
    const entry = /^ {2}(guildkeeper-[a-z-]+): (.*)$/.exec(line);
    const continued = /^ {4}(\S.*)$/.exec(line);
    if (entry) {
      current = entry[1];
      secrets.set(current, new Set(keysIn(entry[2])));
    } else if (continued && current) {
      for (const key of keysIn(continued[1])) secrets.get(current)!.add(key);
    } else {
      current = undefined;
    }
  }
  return secrets;
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
      // In k8s every setting comes from a ConfigMap or a Secret, except what makes the pod what it is.
      for (const entry of container.env ?? []) {
        if (entry.value !== undefined) expect([...STRUCTURAL]).toContain(entry.name);
        const configMap = entry.valueFrom?.configMapKeyRef;
        const secret = entry.valueFrom?.secretKeyRef;
        if (configMap) {
          expect({ name: entry.name, key: configMap.key }).toEqual({ name: entry.name, key: entry.name });
          expect([CONFIG_OBJECT, PUBLIC_KEYS_OBJECT]).toContain(configMap.name);
          if (configMap.name === CONFIG_OBJECT) expect(Object.keys(config.data ?? {})).toContain(entry.name);
        }
        if (secret) {
          // The app's own Secret, or the one Strimzi makes for the app's Kafka user.
          const own = { variable: entry.name, name: appSecret(unit.app), key: entry.name };
          const kafkaUser = { variable: 'KAFKA_SASL_PASSWORD', name: unit.app, key: 'password' };
          expect([own, kafkaUser]).toContainEqual({
            variable: entry.name,
            name: secret.name,
            key: secret.key,
          });
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

  it('runs live sync as one sharded Deployment of a set count, rolled over one pod at a time', () => {
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
    // Several replicas share the shards; a pod's death moves its shards instead of stopping live sync.
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(overlayReplicas('k8s/overlays/prod', deployment)).toBeGreaterThanOrEqual(2);
    for (const overlay of OVERLAYS) {
      expect({ overlay, replicas: overlayReplicas(overlay, deployment) }).toEqual({
        overlay,
        replicas: expect.any(Number),
      });
    }
    // A new pod starts before an old one stops, and the old one has time to hand its shards over.
    expect(deployment.spec.strategy?.type).toBe('RollingUpdate');
    expect(deployment.spec.strategy?.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
    // The count is the operator's, set against the shard count: no autoscaler.
    const autoscalers = ofKind<HorizontalPodAutoscaler>(base, 'HorizontalPodAutoscaler');
    expect(autoscalers.map((hpa) => hpa.spec.scaleTargetRef.name)).not.toContain(unit.name);
    // Voluntary disruptions take one live-sync pod at a time.
    const budgets = ofKind<PodDisruptionBudget>(base, 'PodDisruptionBudget').filter((pdb) =>
      selects(pdb.spec.selector.matchLabels, podLabels(unit)),
    );
    expect(budgets).toHaveLength(1);
    expect(budgets[0].spec.maxUnavailable).toBe(1);
    expect(budgets[0].spec.minAvailable).toBeUndefined();
  });

  it('autoscales every Deployment without a set count, and gives each a budget of one pod', () => {
    const autoscalers = ofKind<HorizontalPodAutoscaler>(base, 'HorizontalPodAutoscaler');
    const budgets = ofKind<PodDisruptionBudget>(base, 'PodDisruptionBudget');
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const scaled = autoscalers.filter((hpa) => hpa.spec.scaleTargetRef.name === name);
      if (deployment.spec.replicas !== undefined) {
        expect({ name, scaled }).toEqual({ name, scaled: [] });
      } else {
        expect({ name, scaled: scaled.length }).toEqual({ name, scaled: 1 });
        expect(scaled[0].spec.scaleTargetRef.kind).toBe('Deployment');
        expect(scaled[0].spec.minReplicas).toBeGreaterThanOrEqual(2);
      }
      const labels = deployment.spec.template.metadata.labels;
      const budget = budgets.filter((pdb) => selects(pdb.spec.selector.matchLabels, labels));
      expect({ name, budgets: budget.map((pdb) => pdb.spec.maxUnavailable) }).toEqual({ name, budgets: [1] });
    }
    // Each budget covers the pods of one unit: the recovery roles share app.kubernetes.io/name.
    for (const pdb of budgets) {
      const covered = UNITS.filter((unit) => selects(pdb.spec.selector.matchLabels, podLabels(unit)));
      expect({ pdb: pdb.metadata.name, covered: covered.map((unit) => unit.name) }).toEqual({
        pdb: pdb.metadata.name,
        covered: [pdb.metadata.name],
      });
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

  it('commits no secret: k8s references Secrets by name, Compose takes secrets from the environment', () => {
    const everything = yamlFilesUnder('k8s').flatMap((file) => readYaml(file) as K8sObject[]);
    expect(everything.filter((object) => object.kind === 'Secret')).toEqual([]);
    for (const map of ofKind<ConfigMap>(everything, 'ConfigMap')) {
      for (const [key, value] of Object.entries(map.data ?? {})) {
        expect({ key, secretLike: SECRET_NAME.test(key) }).toEqual({ key, secretLike: false });
        expect({ key, credentials: URL_CREDENTIALS.test(value) }).toEqual({ key, credentials: false });
      }
    }
    // Every secret-like variable comes from a Secret (the public keys from their ConfigMap), and the
    // Secrets operators create hold exactly the keys config.yaml lists for them.
    const kafkaUsers = ofKind(base, 'KafkaUser').map((user) => user.metadata.name);
    const referenced = new Map<string, Set<string>>();
    for (const container of [...deployments, ...jobs].map(containerOf)) {
      for (const entry of container.env ?? []) {
        const secret = entry.valueFrom?.secretKeyRef;
        if (SECRET_NAME.test(entry.name) && !PUBLIC_NAME.test(entry.name)) {
          expect({ name: entry.name, secret }).toHaveProperty('secret.name');
        }
        if (!secret) continue;
        if (kafkaUsers.includes(secret.name)) {
          expect(secret.key).toBe('password'); // made by Strimzi, not by the operator
          continue;
        }
        referenced.set(secret.name, (referenced.get(secret.name) ?? new Set<string>()).add(secret.key));
      }
    }
    const listed = (secrets: Map<string, Set<string>>) =>
      Object.fromEntries([...secrets].map(([name, keys]) => [name, [...keys].sort()]));
    expect(listed(referenced)).toEqual(listed(documentedSecrets()));
    expect([...referenced.keys()].sort()).toEqual(
      [MIGRATION_SECRET, ...Object.keys(APP_ENVS).map(appSecret)].sort(),
    );

    const composeText = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
    // Compose interpolates the whole file even for `up postgres`: a required variable would stop
    // scripts/infra.sh on a machine that has no app credentials.
    expect(composeText).not.toMatch(/\$\{[^}]*:?\?/);
    for (const [serviceName, service] of Object.entries(compose.services)) {
      const app = UNITS.find((unit) => unit.name === serviceName)?.app;
      for (const [name, value] of Object.entries(composeEnvironment(service).raw)) {
        if (value === COMPOSE_ADMIN_DATABASE_URL) {
          // The local superuser's placeholder login, for the migrate service alone.
          expect({ serviceName, name }).toEqual({ serviceName: 'migrate', name: 'DATABASE_URL' });
        } else {
          const credentials = URL_CREDENTIALS.exec(value)?.[1];
          const fromOperator = credentials === undefined || OPERATOR_URL_CREDENTIALS.test(credentials);
          expect({ serviceName, name, credentials, fromOperator }).toEqual({
            serviceName,
            name,
            credentials,
            fromOperator: true,
          });
        }
        if (!SECRET_NAME.test(name)) continue;
        if (name in COMPOSE_DEV_PLACEHOLDERS) {
          expect(value).toBe(COMPOSE_DEV_PLACEHOLDERS[name]);
          continue;
        }
        // The operator's variable of the same name, or the app's own (`<APP>_<NAME>`, as `npm run
        // keys` prints them), with nothing but empty as the fallback.
        const interpolated = INTERPOLATION.exec(value);
        const allowed = [name, ...(app ? [`${envPrefix(app)}_${name}`] : [])];
        expect({
          serviceName,
          name,
          from: allowed.includes(interpolated?.[1] ?? '') ? 'operator' : value,
          fallback: interpolated?.[2] ?? '',
        }).toEqual({ serviceName, name, from: 'operator', fallback: '' });
      }
    }
  });

  it("migrates every schema in a Job and a Compose service before the apps start, as each app's own role", () => {
    expect(jobs).toHaveLength(1);
    expect(jobs[0].metadata.labels?.['app.kubernetes.io/component']).toBe('migration');
    const container = containerOf(jobs[0]);
    expect(container.command).toEqual(['node', 'dist/scripts/migrate.js']);
    expect(['Never', 'OnFailure']).toContain(jobs[0].spec.template.spec.restartPolicy);
    expect(container.image).toMatch(/^guildkeeper\//);
    // Only Secrets, so that the Job can be applied and run before the rest of a release: the admin
    // login, and every app's own DATABASE_URL (the role it creates and migrates as).
    // The variables scripts/migrate.ts reads each app's own login from.
    const apps = Object.keys(SERVICE_DATABASES) as ServiceName[];
    expect([...apps].sort()).toEqual(Object.keys(APP_ENVS).sort());
    const appUrls = apps.map(serviceDatabaseUrlVariable);
    expect(container.env).toEqual([
      { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: MIGRATION_SECRET, key: 'DATABASE_URL' } } },
      ...apps.map((app, index) => ({
        name: appUrls[index],
        valueFrom: { secretKeyRef: { name: appSecret(app), key: 'DATABASE_URL' } },
      })),
    ]);
    for (const unit of UNITS) {
      const entry = containerOf(deploymentOf(unit)).env?.find(
        (candidate) => candidate.name === 'DATABASE_URL',
      );
      expect(entry?.valueFrom?.secretKeyRef).toEqual({ name: appSecret(unit.app), key: 'DATABASE_URL' });
    }

    const migrate = compose.services.migrate;
    expect(migrate.command).toEqual(container.command);
    const composed = composeEnvironment(migrate).raw;
    expect(Object.keys(composed).sort()).toEqual(['DATABASE_URL', ...appUrls].sort());
    expect(composed.DATABASE_URL).toBe(COMPOSE_ADMIN_DATABASE_URL);
    // Each app logs in with the URL the migration gave its role: a role per app, none the superuser.
    const roles = new Map<string, string>();
    for (const unit of UNITS) {
      const url = composeEnvironment(composeServiceOf(unit)).raw.DATABASE_URL;
      expect({ unit: unit.name, url }).toEqual({
        unit: unit.name,
        url: composed[serviceDatabaseUrlVariable(unit.app as ServiceName)],
      });
      roles.set(unit.app, URL_CREDENTIALS.exec(url)![1].split(':')[0]);
    }
    expect(new Set(roles.values()).size).toBe(apps.length);
    expect([...roles.values()]).not.toContain('postgres');
    for (const unit of UNITS) {
      expect(composeServiceOf(unit).depends_on?.migrate).toEqual({
        condition: 'service_completed_successfully',
      });
    }

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

  it('keeps migrations out of the apps: MIGRATE_ON_START is false everywhere', () => {
    for (const unit of UNITS) {
      const { compose: composed, k8s } = environments(unit);
      expect({ unit: unit.name, compose: composed.values.MIGRATE_ON_START }).toEqual({
        unit: unit.name,
        compose: 'false',
      });
      expect({ unit: unit.name, k8s: k8s.values.MIGRATE_ON_START }).toEqual({
        unit: unit.name,
        k8s: 'false',
      });
    }
  });

  it('routes every public route to its app through the ingress, and nothing else', () => {
    const ingresses = ofKind<Ingress>(base, 'Ingress');
    const paths = ingresses.flatMap((ingress) => ingress.spec.rules.flatMap((rule) => rule.http.paths));
    // One public host and certificate for all of them.
    const hosts = ingresses.flatMap((ingress) => ingress.spec.rules.map((rule) => rule.host));
    expect(new Set(hosts).size).toBe(1);
    for (const ingress of ingresses) {
      expect(ingress.spec.tls).toEqual([
        { hosts: [hosts[0]], secretName: ingresses[0].spec.tls?.[0].secretName },
      ]);
    }
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

  it('limits the provider webhook per client at the ingress, in an Ingress of its own', () => {
    const ingresses = ofKind<Ingress>(base, 'Ingress');
    const pathsOf = (ingress: Ingress) => ingress.spec.rules.flatMap((rule) => rule.http.paths);
    const [webhookRoute] = PUBLIC_ROUTES['webhook-intake'];
    const limited = ingresses.filter((ingress) =>
      pathsOf(ingress).some((entry) => routeUnder(webhookRoute, entry.path, entry.pathType)),
    );
    expect(limited).toHaveLength(1);
    const [webhooks] = limited;
    expect(
      pathsOf(webhooks).map((entry) => [entry.path, entry.pathType, entry.backend.service.name]),
    ).toEqual([[webhookRoute, 'Exact', 'webhook-intake']]);
    const annotations = webhooks.metadata.annotations ?? {};
    const rps = annotations['nginx.ingress.kubernetes.io/limit-rps'];
    const burst = annotations['nginx.ingress.kubernetes.io/limit-burst-multiplier'];
    expect({ rps, burst }).toEqual({
      rps: expect.stringMatching(/^[1-9]\d*$/),
      burst: expect.stringMatching(/^[1-9]\d*$/),
    });
    // The same budget as the intake's own per-client limit behind it.
    expect(Number(rps) * 60).toBe(Number(config.data?.WEBHOOK_RATE_LIMIT_PER_MINUTE));
    expect(annotations['nginx.ingress.kubernetes.io/proxy-body-size']).toBe('1m');
    // Every other route is served as before: no request limit of the ingress on it.
    for (const ingress of ingresses.filter((candidate) => candidate !== webhooks)) {
      const limits = Object.keys(ingress.metadata.annotations ?? {}).filter((key) => /\/limit-/.test(key));
      expect({ ingress: ingress.metadata.name, limits }).toEqual({
        ingress: ingress.metadata.name,
        limits: [],
      });
    }
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
    const denyAll = defaultDenyPolicies('Ingress');
    expect(denyAll).toHaveLength(1);

    const publicServices = new Set(
      ofKind<Ingress>(base, 'Ingress').flatMap((ingress) =>
        ingress.spec.rules.flatMap((rule) => rule.http.paths.map((entry) => entry.backend.service.name)),
      ),
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

    it('sets the host of every Ingress', () => {
      for (const ingress of ofKind<Ingress>(base, 'Ingress')) {
        const hostPatches = (kustomization.patches ?? []).filter(
          (patch) =>
            patch.target?.kind === 'Ingress' &&
            (!patch.target.name || patch.target.name === ingress.metadata.name) &&
            patch.patch?.includes('/spec/rules/0/host') &&
            patch.patch.includes('/spec/tls/0/hosts/0'),
        );
        expect({ ingress: ingress.metadata.name, patched: hostPatches.length }).toEqual({
          ingress: ingress.metadata.name,
          patched: 1,
        });
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
