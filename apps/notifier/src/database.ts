import { AuditLogEntry } from './audit/audit-log.entity';
import { Init1763800000000 } from './migrations/1763800000000-init';

export const notifierDatabase = {
  schema: 'notification',
  entities: [AuditLogEntry],
  migrations: [Init1763800000000],
};
