import type { AuditLogEvent } from 'discord-api-types/v10';
import { BoundedLog } from './bounded-log';

export interface AuditLogChange {
  key: string;
  old_value?: unknown;
  new_value?: unknown;
}

/** One audit-log entry as the gateway sends it (the REST answer leaves out `guild_id`). */
export interface FakeAuditLogEntry {
  id: string;
  guild_id: string;
  /** Who made the request. */
  user_id: string;
  target_id: string | null;
  action_type: AuditLogEvent;
  changes?: AuditLogChange[];
  /** The overwrite entries' `{ id, type, role_name }`, as strings. */
  options?: Record<string, string>;
  /** The request's `X-Audit-Log-Reason`, when it sent one. */
  reason?: string;
}

/** Each guild's audit log, oldest first, the newest `capacity` entries kept. */
export class AuditLogs {
  private readonly byGuild = new Map<string, BoundedLog<FakeAuditLogEntry>>();

  constructor(private readonly capacity: number) {}

  append(entry: FakeAuditLogEntry): void {
    let log = this.byGuild.get(entry.guild_id);
    if (!log) this.byGuild.set(entry.guild_id, (log = new BoundedLog(this.capacity)));
    log.push(entry);
  }

  entries(guildId: string): FakeAuditLogEntry[] {
    return this.byGuild.get(guildId)?.entries() ?? [];
  }

  dropGuild(guildId: string): void {
    this.byGuild.delete(guildId);
  }

  clear(): void {
    this.byGuild.clear();
  }
}

export function auditLogEntryWire({ guild_id: _guildId, ...entry }: FakeAuditLogEntry) {
  return structuredClone(entry);
}

/** The audit-log changes between two versions of an object, for the keys given. */
export function changesOf<T extends object>(
  before: T | null,
  after: T | null,
  keys: readonly (keyof T & string)[],
): AuditLogChange[] {
  const changes: AuditLogChange[] = [];
  for (const key of keys) {
    const old = before?.[key] ?? null;
    const now = after?.[key] ?? null;
    if (JSON.stringify(old) === JSON.stringify(now)) continue;
    changes.push({
      key,
      ...(old !== null ? { old_value: old } : {}),
      ...(now !== null ? { new_value: now } : {}),
    });
  }
  return changes;
}
