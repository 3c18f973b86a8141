import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/** Reads docker-compose.yml and the kustomize trees under k8s/ as plain objects. */

export const ROOT = path.resolve(__dirname, '../..');

/** Every document of a YAML stream, merge keys (`<<`) applied as Compose applies them. */
export function parseYaml(text: string): unknown[] {
  return parseAllDocuments(text, { merge: true }).map((document) => {
    if (document.errors.length) throw document.errors[0];
    return document.toJS() as unknown;
  });
}

export function readYaml(file: string): unknown[] {
  return parseYaml(readFileSync(path.resolve(ROOT, file), 'utf8')).filter((doc) => doc != null);
}

// --- Kubernetes --------------------------------------------------------------------------------

export interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: Metadata;
}

export interface ConfigMap extends K8sObject {
  data?: Record<string, string>;
}

export interface EnvEntry {
  name: string;
  value?: string;
  valueFrom?: {
    configMapKeyRef?: { name: string; key: string };
    secretKeyRef?: { name: string; key: string };
  };
}

export interface Probe {
  httpGet?: { path: string; port: number | string };
}

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  procMount?: string;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type: string };
  seLinuxOptions?: { type?: string };
  appArmorProfile?: { type: string };
  windowsOptions?: { hostProcess?: boolean };
  sysctls?: { name: string; value: string }[];
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number; hostPort?: number }[];
  env?: EnvEntry[];
  envFrom?: unknown[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: {
    requests?: { cpu?: string; memory?: string };
    limits?: { cpu?: string; memory?: string };
  };
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

/** A pod volume: its name and one source key (emptyDir, secret, hostPath, ...). */
export type Volume = { name: string } & Record<string, unknown>;

export interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: {
    containers: Container[];
    initContainers?: Container[];
    ephemeralContainers?: Container[];
    restartPolicy?: string;
    securityContext?: SecurityContext;
    volumes?: Volume[];
    hostNetwork?: boolean;
    hostPID?: boolean;
    hostIPC?: boolean;
    hostUsers?: boolean;
    automountServiceAccountToken?: boolean;
    terminationGracePeriodSeconds?: number;
  };
}

export interface Deployment extends K8sObject {
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    strategy?: {
      type: string;
      rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
    };
    template: PodTemplate;
  };
}

export interface Job extends K8sObject {
  spec: { template: PodTemplate };
}

export interface Service extends K8sObject {
  spec: {
    selector: Record<string, string>;
    ports: { name?: string; port: number; targetPort: number | string }[];
  };
}

export interface HorizontalPodAutoscaler extends K8sObject {
  spec: { scaleTargetRef: { kind: string; name: string }; minReplicas?: number; maxReplicas: number };
}

export interface PodDisruptionBudget extends K8sObject {
  spec: {
    selector: { matchLabels: Record<string, string> };
    maxUnavailable?: number | string;
    minAvailable?: number | string;
  };
}

export interface IngressBackend {
  service: { name: string; port: { name?: string; number?: number } };
}

export interface Namespace extends K8sObject {
  kind: 'Namespace';
}

export interface Ingress extends K8sObject {
  spec: {
    ingressClassName?: string;
    tls?: { hosts: string[]; secretName: string }[];
    rules: {
      host?: string;
      http: { paths: { path: string; pathType: string; backend: IngressBackend }[] };
    }[];
  };
}

export interface PolicyPeer {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
}

export interface PolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

export interface NetworkPolicy extends K8sObject {
  spec: {
    podSelector: { matchLabels?: Record<string, string> };
    policyTypes?: string[];
    ingress?: { from?: PolicyPeer[]; ports?: PolicyPort[] }[];
    egress?: { to?: PolicyPeer[]; ports?: PolicyPort[] }[];
  };
}

export interface KafkaTopic extends K8sObject {
  spec: { topicName?: string; partitions: number; replicas: number };
}

export interface KafkaUser extends K8sObject {
  spec: {
    authentication?: { type: string };
    authorization?: {
      type: string;
      acls?: {
        resource: { type: string; name?: string; patternType?: string };
        operations: string[];
        host?: string;
        type?: string;
      }[];
    };
  };
}

export interface Kustomization {
  namespace?: string;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { path?: string; patch?: string; target?: { kind?: string; name?: string } }[];
  replicas?: { name: string; count: number }[];
}

export function readKustomization(dir: string): Kustomization {
  return readYaml(path.join(dir, 'kustomization.yaml'))[0] as Kustomization;
}

/** The objects of a kustomization's own resource files (not of the bases it builds on). */
export function kustomizeResources(dir: string): { file: string; object: K8sObject }[] {
  return (readKustomization(dir).resources ?? [])
    .filter((resource) => resource.endsWith('.yaml'))
    .flatMap((resource) => {
      const file = path.join(dir, resource);
      return readYaml(file).map((object) => ({ file, object: object as K8sObject }));
    });
}

/**
 * The replica count an overlay gives a base Deployment: the base's, then the kustomization's
 * `replicas` entries, then its patches that reach the Deployment (JSON 6902 ops on `/spec/replicas`,
 * or strategic-merge patches, inline or in a file). Undefined when no one sets a count.
 */
export function overlayReplicas(dir: string, deployment: K8sObject & { spec: { replicas?: number } }) {
  const { name } = deployment.metadata;
  const kustomization = readKustomization(dir);
  let replicas = deployment.spec.replicas;
  for (const entry of kustomization.replicas ?? []) if (entry.name === name) replicas = entry.count;
  for (const patch of kustomization.patches ?? []) {
    const target = patch.target;
    if (target && ((target.kind && target.kind !== 'Deployment') || (target.name && target.name !== name))) {
      continue;
    }
    const documents = patch.patch ? parseYaml(patch.patch) : readYaml(path.join(dir, patch.path!));
    for (const document of documents) {
      if (Array.isArray(document)) {
        for (const op of document as { op: string; path: string; value?: unknown }[]) {
          if (op.path !== '/spec/replicas') continue;
          replicas = op.op === 'remove' ? undefined : (op.value as number);
        }
        continue;
      }
      const object = document as (K8sObject & { spec?: { replicas?: number } }) | null;
      if (
        object?.kind === 'Deployment' &&
        object.metadata?.name === name &&
        object.spec?.replicas !== undefined
      ) {
        replicas = object.spec.replicas;
      }
    }
  }
  return replicas;
}

export function ofKind<T extends K8sObject>(objects: K8sObject[], kind: string): T[] {
  return objects.filter((object) => object.kind === kind) as T[];
}

// --- Compose -----------------------------------------------------------------------------------

export interface ComposeService {
  image?: string;
  build?: { context: string; args?: Record<string, string> };
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string | number | boolean | null>;
  ports?: string[];
  network_mode?: string;
  healthcheck?: { test: string[] | string };
  depends_on?: Record<string, { condition: string }>;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
}

export function readCompose(): ComposeFile {
  return readYaml('docker-compose.yml')[0] as ComposeFile;
}

/** `${NAME}`, `${NAME:-default}` or `${NAME-default}`: a value Compose takes from the environment. */
export const INTERPOLATION = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}$/;
/** The same inside a longer value, e.g. the password of a URL. */
const EMBEDDED_INTERPOLATION = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g;

/**
 * A service's environment as the app sees it when the operator has set nothing: literal values,
 * and interpolations replaced by their defaults (also inside a longer value). `fromOperator` lists
 * the variables taken whole from the operator's environment without a default.
 */
export function composeEnvironment(service: ComposeService): {
  values: Record<string, string>;
  fromOperator: Set<string>;
  raw: Record<string, string>;
} {
  const values: Record<string, string> = {};
  const raw: Record<string, string> = {};
  const fromOperator = new Set<string>();
  for (const [name, value] of Object.entries(service.environment ?? {})) {
    const text = value === null ? '' : String(value);
    raw[name] = text;
    const interpolated = INTERPOLATION.exec(text);
    if (interpolated && !interpolated[2]) fromOperator.add(name);
    else
      values[name] = text.replace(
        EMBEDDED_INTERPOLATION,
        (_match, _name, fallback?: string) => fallback ?? '',
      );
  }
  return { values, fromOperator, raw };
}
