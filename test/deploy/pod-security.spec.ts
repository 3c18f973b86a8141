import { base, podTemplates } from './deployment-units';
import { type Namespace, ofKind, type PodTemplate, type SecurityContext } from './manifest-files';

/**
 * Pod Security: the namespace enforces the `restricted` profile, and every pod template of the base
 * passes it, so nothing is refused at admission. The rules are those of the Pod Security Standards
 * (kubernetes.io/docs/concepts/security/pod-security-standards), baseline and restricted, plus
 * this project's own: a read-only root filesystem with an emptyDir /tmp, and no service account
 * token (no app talks to the Kubernetes API).
 */

const PROFILE = 'restricted';
const MODES = ['enforce', 'audit', 'warn'];
const RESTRICTED_VOLUMES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
const ALLOWED_SELINUX_TYPES = new Set([
  '',
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);
/** Kinds that make pods; each must be checked here, so an unchecked one is refused. */
const POD_KINDS = new Set(['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob']);

/** Why the `restricted` profile (and this project's additions) would refuse the pod; [] if it passes. */
function restrictedViolations(template: PodTemplate): string[] {
  const spec = template.spec;
  const pod: SecurityContext = spec.securityContext ?? {};
  const containers = [
    ...spec.containers,
    ...(spec.initContainers ?? []),
    ...(spec.ephemeralContainers ?? []),
  ];
  const problems: string[] = [];
  const flag = (bad: boolean, problem: string) => {
    if (bad) problems.push(problem);
  };

  // Baseline.
  flag(Boolean(spec.hostNetwork || spec.hostPID || spec.hostIPC), 'shares a host namespace');
  flag(Boolean(pod.windowsOptions?.hostProcess), 'pod is a Windows host process');
  for (const sysctl of pod.sysctls ?? [])
    flag(!SAFE_SYSCTLS.has(sysctl.name), `unsafe sysctl ${sysctl.name}`);
  for (const volume of spec.volumes ?? []) {
    const source = Object.keys(volume).find((key) => key !== 'name') ?? '(none)';
    flag(!RESTRICTED_VOLUMES.has(source), `volume ${volume.name} is a ${source}`);
  }
  for (const context of [pod, ...containers.map((container) => container.securityContext ?? {})]) {
    const type = context.appArmorProfile?.type;
    flag(type !== undefined && type !== 'RuntimeDefault' && type !== 'Localhost', `AppArmor ${type}`);
    flag(!ALLOWED_SELINUX_TYPES.has(context.seLinuxOptions?.type ?? ''), 'SELinux type');
    flag(context.seccompProfile?.type === 'Unconfined', 'seccomp Unconfined');
    flag(context.runAsNonRoot === false, 'runAsNonRoot false');
    flag(context.runAsUser === 0, 'runs as uid 0');
  }

  // Restricted, and ours, per container.
  for (const container of containers) {
    const context = container.securityContext ?? {};
    const name = container.name;
    flag(Boolean(context.privileged), `${name}: privileged`);
    flag(Boolean(context.windowsOptions?.hostProcess), `${name}: Windows host process`);
    flag(context.procMount !== undefined && context.procMount !== 'Default', `${name}: procMount`);
    flag(Boolean(container.ports?.some((port) => port.hostPort)), `${name}: hostPort`);
    flag(context.allowPrivilegeEscalation !== false, `${name}: allowPrivilegeEscalation not false`);
    flag(!(context.runAsNonRoot ?? pod.runAsNonRoot), `${name}: runAsNonRoot not true`);
    const seccomp = context.seccompProfile?.type ?? pod.seccompProfile?.type;
    flag(seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost', `${name}: seccomp ${seccomp}`);
    flag(!context.capabilities?.drop?.includes('ALL'), `${name}: capabilities not dropped (ALL)`);
    const added = (context.capabilities?.add ?? []).filter((capability) => capability !== 'NET_BIND_SERVICE');
    flag(added.length > 0, `${name}: adds ${added.join(', ')}`);
    flag(context.readOnlyRootFilesystem !== true, `${name}: root filesystem writable`);
    const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
    const tmpVolume = spec.volumes?.find((volume) => volume.name === tmp?.name);
    flag(!tmpVolume?.emptyDir, `${name}: no emptyDir at /tmp`);
  }
  flag(spec.automountServiceAccountToken !== false, 'mounts a service account token');
  return problems;
}

describe('Pod Security', () => {
  it(`makes the namespace enforce, audit and warn on the ${PROFILE} profile, at a pinned version`, () => {
    const [namespace, ...others] = ofKind<Namespace>(base, 'Namespace');
    expect(others).toEqual([]);
    const labels = namespace.metadata.labels ?? {};
    const versions = MODES.map((mode) => labels[`pod-security.kubernetes.io/${mode}-version`]);
    for (const mode of MODES) {
      expect({ mode, level: labels[`pod-security.kubernetes.io/${mode}`] }).toEqual({ mode, level: PROFILE });
    }
    expect(versions[0]).toMatch(/^v1\.\d+$/);
    expect(new Set(versions)).toEqual(new Set([versions[0]]));
  });

  it('makes pods only through workloads checked here', () => {
    const podMakers = base
      .filter((object) => POD_KINDS.has(object.kind))
      .map((object) => object.metadata.name);
    expect(podMakers.sort()).toEqual(
      podTemplates()
        .map(({ name }) => name)
        .sort(),
    );
  });

  it.each(podTemplates().map(({ name, template }) => [name, template] as const))(
    `runs %s's pods within the ${PROFILE} profile`,
    (_name, template) => {
      expect(restrictedViolations(template)).toEqual([]);
    },
  );

  it('refuses what the profile refuses (the check itself)', () => {
    const [{ template }] = podTemplates();
    const [container] = template.spec.containers;
    const broken: PodTemplate = {
      ...template,
      spec: {
        ...template.spec,
        hostNetwork: true,
        securityContext: {
          ...template.spec.securityContext,
          runAsNonRoot: undefined,
          seccompProfile: undefined,
        },
        volumes: [
          ...(template.spec.volumes ?? []),
          { name: 'docker', hostPath: { path: '/var/run/docker.sock' } },
        ],
        containers: [
          {
            ...container,
            ports: [{ containerPort: 80, hostPort: 80 }],
            securityContext: { privileged: true, capabilities: { add: ['SYS_ADMIN'] }, runAsUser: 0 },
          },
        ],
      },
    };
    const name = container.name;
    expect(restrictedViolations(broken).sort()).toEqual(
      [
        'shares a host namespace',
        'volume docker is a hostPath',
        'runs as uid 0',
        `${name}: privileged`,
        `${name}: hostPort`,
        `${name}: allowPrivilegeEscalation not false`,
        `${name}: runAsNonRoot not true`,
        `${name}: seccomp undefined`,
        `${name}: capabilities not dropped (ALL)`,
        `${name}: adds SYS_ADMIN`,
        `${name}: root filesystem writable`,
      ].sort(),
    );
  });
});
