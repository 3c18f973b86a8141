// The local broker's SASL side, driven by scripts/infra.sh (run with `node -r @swc-node/register`):
//
//   format-args    the `--add-scram` arguments of kafka-storage format, one per line
//   missing-users  users the SASL listener refuses, each as "<user>\t<kafka-configs SCRAM value>"
//                  (storage formatted before the users existed); exit 1 if it does not answer
//   apply-acls     makes the service users' ACLs exactly the matrix's (libs/contracts
//                  kafka-access.ts): missing ones created, others removed; idempotent
//   check          exit 0 once every user logs in on the SASL listener
//
// The ACLs are written through KAFKA_BROKERS, the plaintext listener, whose anonymous principal
// is a super user on the local broker only.
import {
  type Admin,
  type AclEntry,
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  Kafka,
  logLevel,
  ResourcePatternTypes,
} from 'kafkajs';
import { KAFKA_SERVICES, type KafkaAclRule, kafkaAclRules } from '../../libs/contracts/src/kafka-access';
import {
  LOCAL_KAFKA_MECHANISM,
  LOCAL_KAFKA_USERS,
  localKafkaPassword,
  localKafkaSaslBrokers,
} from './kafka-local-users';

const SCRAM_CONFIG_NAME = 'SCRAM-SHA-512';

const OPERATIONS: Record<KafkaAclRule['operations'][number], AclOperationTypes> = {
  Read: AclOperationTypes.READ,
  Write: AclOperationTypes.WRITE,
  Describe: AclOperationTypes.DESCRIBE,
};

/** The broker ACL entries of a service's rules in the matrix. */
export function aclEntries(service: (typeof KAFKA_SERVICES)[number]): AclEntry[] {
  return kafkaAclRules(service).flatMap(({ resource, operations }) =>
    operations.map((operation) => ({
      resourceType: resource.type === 'topic' ? AclResourceTypes.TOPIC : AclResourceTypes.GROUP,
      resourceName: resource.name,
      resourcePatternType:
        resource.patternType === 'prefix' ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
      principal: `User:${service}`,
      host: '*',
      operation: OPERATIONS[operation],
      permissionType: AclPermissionTypes.ALLOW,
    })),
  );
}

function client(brokers: string, sasl?: { username: string; password: string }): Kafka {
  return new Kafka({
    clientId: 'infra-kafka-access',
    brokers: brokers.split(','),
    connectionTimeout: 2_000,
    requestTimeout: 5_000,
    // The caller polls with its own deadline.
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
    ...(sasl && { sasl: { mechanism: LOCAL_KAFKA_MECHANISM, ...sasl } }),
  });
}

/** `ok`, `refused` (the broker answered and rejected the login) or `unreachable`. */
async function login(user: string): Promise<'ok' | 'refused' | 'unreachable'> {
  const admin = client(localKafkaSaslBrokers(), {
    username: user,
    password: localKafkaPassword(user),
  }).admin();
  try {
    await admin.connect();
    return 'ok';
  } catch (error) {
    const refused = /SASL.*authentication failed|Authentication failed/i.test(String(error));
    if (process.env.INFRA_VERBOSE) console.error(`kafka-access: ${user}: ${String(error)}`);
    return refused ? 'refused' : 'unreachable';
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

const aclKey = (acl: AclEntry) =>
  [
    acl.resourceType,
    acl.resourcePatternType,
    acl.resourceName,
    acl.principal,
    acl.host,
    acl.operation,
    acl.permissionType,
  ].join('|');

/** The ACL entries the broker holds for `principal`, one per operation. */
export async function currentAcls(admin: Admin, principal: string): Promise<AclEntry[]> {
  const { resources } = await admin.describeAcls({
    resourceType: AclResourceTypes.ANY,
    resourcePatternType: ResourcePatternTypes.ANY,
    principal,
    operation: AclOperationTypes.ANY,
    permissionType: AclPermissionTypes.ANY,
  });
  return resources.flatMap(({ acls, ...resource }) => acls.map((acl) => ({ ...resource, ...acl })));
}

async function applyAcls(): Promise<void> {
  const admin = client(process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').admin();
  await admin.connect();
  try {
    let created = 0;
    let removed = 0;
    for (const service of KAFKA_SERVICES) {
      const wanted = aclEntries(service);
      const wantedKeys = new Set(wanted.map(aclKey));
      const existing = await currentAcls(admin, `User:${service}`);
      const existingKeys = new Set(existing.map(aclKey));
      const extra = existing.filter((acl) => !wantedKeys.has(aclKey(acl)));
      const missing = wanted.filter((acl) => !existingKeys.has(aclKey(acl)));
      if (extra.length) {
        await admin.deleteAcls({ filters: extra });
        removed += extra.length;
      }
      if (missing.length) {
        await admin.createAcls({ acl: missing });
        created += missing.length;
      }
    }
    console.error(
      `kafka-access: ACLs of ${KAFKA_SERVICES.join(', ')} as in the matrix (${created} created, ${removed} removed)`,
    );
  } finally {
    await admin.disconnect();
  }
}

/** The commands infra.sh runs; each resolves to the process's exit code. */
const COMMANDS: Record<string, () => Promise<number>> = {
  'format-args': () => {
    for (const user of LOCAL_KAFKA_USERS) {
      console.log('--add-scram');
      console.log(`${SCRAM_CONFIG_NAME}=[name=${user},password=${localKafkaPassword(user)}]`);
    }
    return Promise.resolve(0);
  },
  'missing-users': async () => {
    const results = await Promise.all(
      LOCAL_KAFKA_USERS.map(async (user) => [user, await login(user)] as const),
    );
    if (results.some(([, result]) => result === 'unreachable')) return 1;
    for (const [user, result] of results) {
      if (result === 'refused')
        console.log(`${user}\t${SCRAM_CONFIG_NAME}=[password=${localKafkaPassword(user)}]`);
    }
    return 0;
  },
  'apply-acls': async () => {
    await applyAcls();
    return 0;
  },
  check: async () => {
    const results = await Promise.all(LOCAL_KAFKA_USERS.map(login));
    return results.every((result) => result === 'ok') ? 0 : 1;
  },
};

function main(command: string | undefined): Promise<number> {
  const run = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) {
    console.error(`usage: kafka-access.ts ${Object.keys(COMMANDS).join('|')}`);
    return Promise.resolve(2);
  }
  return run();
}

if (require.main === module) {
  // A hung socket must not outlive the caller's poll interval.
  const watchdog = setTimeout(() => {
    console.error('kafka-access: timed out');
    process.exit(1);
  }, 30_000);
  main(process.argv[2]).then(
    (code) => {
      clearTimeout(watchdog);
      process.exit(code);
    },
    (error: unknown) => {
      console.error(`kafka-access: ${String(error)}`);
      process.exit(1);
    },
  );
}
