import { ChatPlatformClient } from '@lib/chat-platform';
import { RESTORE_SCOPES } from '@lib/contracts';
import type { DataSource } from 'typeorm';
import type { RecoveryStack } from '../../support/recovery-stack';
import { restorable } from '../../support/restore-scenario';
import { waitFor } from '../../support/wait';

type Body = Record<string, unknown>;
const SCOPES = [...RESTORE_SCOPES];
const GUILD_SCOPES = ['roles', 'channels', 'permission_overrides', 'guild_settings'];

/** What the platform shows of a guild: its state, every member's roles, the bans. */
export type PlatformRead = Awaited<ReturnType<RaidUndo['platformRead']>>;

/**
 * "Undo this raid" as a scenario plays it against the running apps: the platform read before the
 * raid, the journal holding the raider's last action, the undo and its preview, the restore to its
 * end and the guild compared with the read from before the raid. One per test file, over its stack.
 */
export class RaidUndo {
  readonly reader: ChatPlatformClient;

  constructor(
    private readonly stack: RecoveryStack,
    private readonly dataSource: DataSource,
  ) {
    this.reader = new ChatPlatformClient({
      apiBaseUrl: `${stack.platform.url}/api`,
      botToken: 'fake-bot-token',
    });
  }

  private async api(owner: string, method: string, path: string, body?: unknown): Promise<Body> {
    const answer = await this.stack.call(this.stack.recovery, method, path, this.stack.user(owner), body);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
    return answer.body;
  }

  /** What the platform shows of a guild: its state, every member's roles, the bans. */
  async platformRead(platformGuildId: string) {
    const [state, members, bans] = await Promise.all([
      this.reader.getGuildState(platformGuildId),
      this.reader.listMembers(platformGuildId),
      this.reader.listBans(platformGuildId),
    ]);
    return {
      state,
      members: new Map(members.map((member) => [member.user.id, [...member.roles].sort()])),
      bans: bans.map((ban) => ban.user.id).sort(),
    };
  }

  /** How many guilds live sync mirrors (`live_sync_guilds`). */
  async mirroredGuilds(): Promise<number> {
    const metrics = await (await fetch(`${this.stack.recovery.url}/metrics`)).text();
    return Number(/^live_sync_guilds (\d+)$/m.exec(metrics)?.[1] ?? 0);
  }

  /**
   * Live sync mirrors the guild and journals its changes: `firstChange` (made by an admin) brings
   * live sync to read the guild, then `journalled` makes a change whose before-image the journal
   * must hold; it answers the changed object's id. Returns once that row is written.
   */
  async journalling(
    guildId: string,
    mirroredBefore: number,
    firstChange: () => Promise<unknown>,
    journalled: () => Promise<string>,
  ): Promise<void> {
    await firstChange();
    // Live sync reads the guild on its first event: what follows is journalled.
    await waitFor(
      'live sync to mirror the guild',
      async () => (await this.mirroredGuilds()) > mirroredBefore,
      {
        timeoutMs: 30_000,
        intervalMs: 100,
      },
    );
    const objectId = await journalled();
    await waitFor(
      'live sync to journal the change',
      async () =>
        (
          await this.dataSource.query(
            `SELECT 1 FROM recovery.change_journal WHERE guild_id = $1 AND object_id = $2`,
            [guildId, objectId],
          )
        ).length > 0,
      { timeoutMs: 30_000, intervalMs: 100 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- recovery ---\n${this.stack.recovery.output().slice(-6000)}`);
    });
  }

  async incidentOf(owner: string, guildId: string): Promise<Body> {
    return waitFor(
      'an incident',
      async () => {
        const items = (await this.api(owner, 'GET', `/api/v1/guilds/${guildId}/incidents`)).items as Body[];
        return items.length > 0 ? items[0] : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- recovery ---\n${this.stack.recovery.output().slice(-4000)}`);
    });
  }

  /** Live sync has journalled the raider's entry (the journal is written in batches). */
  async journalHolds(guildId: string, actor: string, actionType: number, targetId: string): Promise<void> {
    await waitFor(
      'the raider’s last action in the journal',
      async () =>
        (
          await this.dataSource.query(
            `SELECT 1 FROM recovery.change_journal_audit_entries
              WHERE guild_id = $1 AND actor_id = $2 AND action_type = $3 AND target_id = $4`,
            [guildId, actor, actionType, targetId],
          )
        ).length === 1,
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  }

  /** Live sync has journalled `count` entries of the raider's (the journal is written in batches). */
  async journalHoldsAll(guildId: string, actor: string, count: number): Promise<void> {
    await waitFor(
      `the raider’s ${count} actions in the journal`,
      async () => {
        const [row] = await this.dataSource.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM recovery.change_journal_audit_entries
            WHERE guild_id = $1 AND actor_id = $2`,
          [guildId, actor],
        );
        return row.n >= count;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  }

  /** "Undo this raid" (twice: nothing changed, the same snapshot) and its preview with every part. */
  async undoPreview(owner: string, guildId: string, incidentId: string) {
    const path = `/api/v1/guilds/${guildId}/antinuke/incidents/${incidentId}/undo`;
    const undo = await this.api(owner, 'POST', path);
    expect(undo).toEqual({ snapshot_id: expect.any(String), created: true, unknown_objects: [] });
    expect(await this.api(owner, 'POST', path)).toEqual({ ...undo, created: false });
    const [snapshot] = await this.dataSource.query<{ trigger: string }[]>(
      `SELECT trigger FROM recovery.snapshots WHERE id = $1`,
      [undo.snapshot_id],
    );
    expect(snapshot.trigger).toBe('antinuke');
    const incident = await this.incidentOf(owner, guildId);
    expect(incident.undo_snapshot_id).toBe(undo.snapshot_id);
    const body = { snapshot_id: undo.snapshot_id, scope: SCOPES };
    return { body, preview: await this.api(owner, 'POST', '/api/v1/restore/preview', body) };
  }

  async restore(owner: string, body: Body, preview: Body): Promise<void> {
    const started = await this.api(owner, 'POST', '/api/v1/restore/start', {
      ...body,
      approved_diff_hash: preview.diff_hash,
    });
    await waitFor(
      'the restore to complete',
      async () => {
        const job = await this.api(owner, 'GET', `/api/v1/restore/${started.id as string}`);
        if (job.status === 'failed') throw new Error(`restore failed: ${JSON.stringify(job)}`);
        return job.status === 'completed';
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
  }

  /** Live id -> the id it replaces, following the replacements the restore recorded. */
  async toOriginal(guildId: string): Promise<(kind: 'role' | 'channel', id: string) => string> {
    const rows = await this.dataSource.query<{ kind: string; original_id: string; replacement_id: string }[]>(
      `SELECT kind, original_id, replacement_id FROM recovery.platform_id_replacements WHERE guild_id = $1`,
      [guildId],
    );
    const back = new Map(rows.map((row) => [`${row.kind}:${row.replacement_id}`, row.original_id]));
    return (kind, id) => {
      let current = id;
      for (let hops = 0; back.has(`${kind}:${current}`) && hops < 20; hops++)
        current = back.get(`${kind}:${current}`)!;
      return current;
    };
  }

  /** The guild equals the platform's read from just before the raid, recreated ids aside. */
  async expectAsBefore(guildId: string, platformGuildId: string, before: PlatformRead): Promise<void> {
    const after = await this.platformRead(platformGuildId);
    const original = await this.toOriginal(guildId);
    expect(restorable(after.state, GUILD_SCOPES, original)).toEqual(restorable(before.state, GUILD_SCOPES));
    const rolesOf = (members: Map<string, string[]>) =>
      new Map([...members].map(([id, roles]) => [id, roles.map((role) => original('role', role)).sort()]));
    expect(rolesOf(after.members)).toEqual(before.members);
    expect(after.bans).toEqual(before.bans);
  }
}

/** A preview's updates as (current name, target name, fields changed). */
export const updates = (items: unknown) =>
  (items as { current: { name: string }; target: { name: string }; changed_fields: string[] }[]).map(
    (item) => ({ name: item.current.name, target: item.target.name, changed_fields: item.changed_fields }),
  );
/** A preview list's names, sorted. */
export const names = (items: unknown) => (items as { name: string }[]).map((item) => item.name).sort();

/** What a restore preview would change, by name: each part of the diff, none left out. */
export interface Damage {
  roles_to_create: string[];
  roles_to_update: { name: string; target: string; changed_fields: string[] }[];
  roles_to_delete: string[];
  channels_to_create: string[];
  channels_to_update: { name: string; target: string; changed_fields: string[] }[];
  channels_to_delete: string[];
  /** `channel: role or member id`, sorted. */
  overrides_to_apply: string[];
  overrides_to_remove: string[];
  guild_settings_diff: string[];
  /** `role: holders given it back`, sorted. */
  member_roles_to_restore: string[];
  members_to_update: number;
  members_absent: number;
  bans_to_lift: string[];
  skipped: unknown[];
}

/** The preview as a Damage, to compare whole with what the raid did. */
export function damageIn(preview: Body): Damage {
  const overrides = (items: unknown) =>
    (items as { channel_name: string; target_name: string | null; id: string }[])
      .map((item) => `${item.channel_name}: ${item.target_name ?? item.id}`)
      .sort();
  return {
    roles_to_create: names(preview.roles_to_create),
    roles_to_update: updates(preview.roles_to_update),
    roles_to_delete: names(preview.roles_to_delete),
    channels_to_create: names(preview.channels_to_create),
    channels_to_update: updates(preview.channels_to_update),
    channels_to_delete: names(preview.channels_to_delete),
    overrides_to_apply: overrides(preview.overrides_to_apply),
    overrides_to_remove: overrides(preview.overrides_to_remove),
    guild_settings_diff: Object.keys(preview.guild_settings_diff as Body).sort(),
    member_roles_to_restore: (preview.member_roles_to_restore as { role_name: string; members: number }[])
      .map((item) => `${item.role_name}: ${item.members}`)
      .sort(),
    members_to_update: preview.members_to_update as number,
    members_absent: preview.members_absent as number,
    bans_to_lift: (preview.bans_to_lift as { user_id: string }[]).map((item) => item.user_id).sort(),
    skipped: preview.skipped as unknown[],
  };
}

/** No damage: the parts a raid fills in are given to `damage`. */
export function damage(parts: Partial<Damage>): Damage {
  return {
    roles_to_create: [],
    roles_to_update: [],
    roles_to_delete: [],
    channels_to_create: [],
    channels_to_update: [],
    channels_to_delete: [],
    overrides_to_apply: [],
    overrides_to_remove: [],
    guild_settings_diff: [],
    member_roles_to_restore: [],
    members_to_update: 0,
    members_absent: 0,
    bans_to_lift: [],
    skipped: [],
    ...parts,
    ...(parts.bans_to_lift && { bans_to_lift: [...parts.bans_to_lift].sort() }),
  };
}
