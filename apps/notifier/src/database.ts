import { AuditLogEntry } from './audit/audit-log.entity';
import { Init1763800000000 } from './migrations/1763800000000-init';
import { Notifications1764400000002 } from './migrations/1764400000002-notifications';
import { DmKindsAndTestDms1765500000000 } from './migrations/1765500000000-dm-kinds-and-test-dms';
import { RetentionIndexes1766400000000 } from './migrations/1766400000000-retention-indexes';

export const notifierDatabase = {
  schema: 'notification',
  entities: [AuditLogEntry],
  migrations: [
    Init1763800000000,
    Notifications1764400000002,
    DmKindsAndTestDms1765500000000,
    RetentionIndexes1766400000000,
  ],
};
