import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** The kinds of DM a user can turn off, one switch each. */
export const PREFERENCE_KEYS = [
  'payment_notifications',
  'restore_notifications',
  'incident_notifications',
] as const;
export type PreferenceKey = (typeof PREFERENCE_KEYS)[number];

export type NotificationPreferences = Record<PreferenceKey, boolean> & {
  /** Null while the user has never changed anything (the defaults apply). */
  updated_at: string | null;
};

/** docs/decisions/notification-preferences.md: every kind of DM is on until the user turns it off. */
const DEFAULTS: Record<PreferenceKey, boolean> = {
  payment_notifications: true,
  restore_notifications: true,
  incident_notifications: true,
};

type PreferenceRow = Record<PreferenceKey, boolean> & { updated_at: Date };
const COLUMNS = `${PREFERENCE_KEYS.join(', ')}, updated_at`;

function toPreferences(row: PreferenceRow | undefined): NotificationPreferences {
  if (!row) return { ...DEFAULTS, updated_at: null };
  return {
    payment_notifications: row.payment_notifications,
    restore_notifications: row.restore_notifications,
    incident_notifications: row.incident_notifications,
    updated_at: row.updated_at.toISOString(),
  };
}

@Injectable()
export class PreferencesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async get(
    userId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<NotificationPreferences> {
    const [row] = await manager.query<PreferenceRow[]>(
      `SELECT ${COLUMNS} FROM notification.notification_preferences WHERE user_id = $1`,
      [userId],
    );
    return toPreferences(row);
  }

  /**
   * The preferences of a DM's recipient: by the service's user id where the event knows it, else
   * by the platform id the user last saved their preferences with (an incident names only the
   * guild owner's platform id).
   */
  async forRecipient(
    recipient: { userId: string | null; platformUserId: string },
    manager: EntityManager = this.dataSource.manager,
  ): Promise<NotificationPreferences> {
    if (recipient.userId !== null) return this.get(recipient.userId, manager);
    const [row] = await manager.query<PreferenceRow[]>(
      `SELECT ${COLUMNS} FROM notification.notification_preferences WHERE platform_user_id = $1`,
      [recipient.platformUserId],
    );
    return toPreferences(row);
  }

  /** Sets what the body names; a switch it leaves out keeps its value (or its default). */
  async put(
    user: { userId: string; platformUserId: string },
    preferences: { payment_notifications: boolean } & Partial<Record<PreferenceKey, boolean>>,
  ): Promise<NotificationPreferences> {
    return this.dataSource.transaction(async (manager) => {
      // The platform id moves with the user who saved last: a platform account maps to one user.
      await manager.query(
        `UPDATE notification.notification_preferences SET platform_user_id = NULL
          WHERE platform_user_id = $1 AND user_id <> $2`,
        [user.platformUserId, user.userId],
      );
      const [row] = await manager.query<PreferenceRow[]>(
        `INSERT INTO notification.notification_preferences
           (user_id, platform_user_id, payment_notifications, restore_notifications, incident_notifications)
         VALUES ($1, $2, $3, COALESCE($4, true), COALESCE($5, true))
         ON CONFLICT (user_id) DO UPDATE
            SET platform_user_id = EXCLUDED.platform_user_id,
                payment_notifications = EXCLUDED.payment_notifications,
                restore_notifications = COALESCE($4, notification_preferences.restore_notifications),
                incident_notifications = COALESCE($5, notification_preferences.incident_notifications),
                updated_at = now()
         RETURNING ${COLUMNS}`,
        [
          user.userId,
          user.platformUserId,
          preferences.payment_notifications,
          preferences.restore_notifications ?? null,
          preferences.incident_notifications ?? null,
        ],
      );
      return toPreferences(row);
    });
  }

  /**
   * Takes `userId`'s test-DM slot when the last one is at least `intervalSeconds` old: null when
   * taken, else the seconds until the next one is allowed. Every replica shares the count.
   */
  async claimTestDm(userId: string, intervalSeconds: number): Promise<number | null> {
    const [claimed] = await this.dataSource.query<{ user_id: string }[]>(
      `INSERT INTO notification.test_dms (user_id, sent_at) VALUES ($1, now())
       ON CONFLICT (user_id) DO UPDATE SET sent_at = now()
        WHERE test_dms.sent_at <= now() - make_interval(secs => $2)
       RETURNING user_id`,
      [userId, intervalSeconds],
    );
    if (claimed) return null;
    const [{ wait }] = await this.dataSource.query<{ wait: number }[]>(
      `SELECT GREATEST(1, ceil(extract(epoch FROM sent_at + make_interval(secs => $2) - now())))::int AS wait
         FROM notification.test_dms WHERE user_id = $1`,
      [userId, intervalSeconds],
    );
    return wait;
  }
}
