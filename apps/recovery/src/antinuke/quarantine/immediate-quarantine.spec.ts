import type { ChatPlatformClient, GuildState, PlatformMember, PlatformRole } from '@lib/chat-platform';
import type { EntitlementsClient } from '@lib/entitlements';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import type { GuildRegistry } from '../../guilds/guild-registry.service';
import type { AntiNukeSettingsRepository } from '../antinuke-settings.repository';
import type { DestructiveAction } from '../destructive-action';
import { DEFAULT_ANTINUKE_SETTINGS, type QuarantineRecord } from '../workflows/antinuke-contract';
import { platformRole } from '../../sync/guild-state.fixture';
import { ImmediateQuarantine } from './immediate-quarantine';
import type { QuarantineRepository, StoredQuarantine } from './quarantine.repository';

const GUILD = '0190a000-0000-7000-8000-000000000001';
const PLATFORM_GUILD = '500';
const BOT = '900';
const OWNER = '100';
const RAIDER = '200';

function role(id: string, position: number, permissions: bigint): PlatformRole {
  return platformRole(id, { name: `role-${id}`, position, permissions: permissions.toString() });
}

const state = {
  guild: { id: PLATFORM_GUILD, owner_id: OWNER },
  roles: [role(PLATFORM_GUILD, 0, P.ViewChannel), role('admin', 2, P.Administrator), role('top', 5, 0n)],
  channels: [],
  permission_overrides: [],
} as unknown as GuildState;

function member(id: string, roles: string[]): PlatformMember {
  return { user: { id, username: id, global_name: null, bot: false }, roles, nick: null };
}

/** The platform as the quarantine uses it: members and their roles, and what was written. */
function fakePlatform() {
  const roles = new Map([
    [RAIDER, ['admin']],
    [OWNER, ['admin']],
    [BOT, ['top']],
  ]);
  const writes: string[] = [];
  const reads: string[] = [];
  const platform = {
    getMember: (_guild: string, userId: string) => {
      reads.push(`member ${userId}`);
      return Promise.resolve(member(userId, roles.get(userId) ?? []));
    },
    getGuild: () => {
      reads.push('guild');
      return Promise.resolve(state.guild);
    },
    getGuildState: () => {
      reads.push('state');
      return Promise.resolve(state);
    },
    getCurrentUser: () => {
      reads.push('me');
      return Promise.resolve({ id: BOT });
    },
    setMemberRoles: (_guild: string, userId: string, kept: string[]) => {
      writes.push(`roles ${userId} -> [${kept.join(',')}]`);
      roles.set(userId, kept);
      return Promise.resolve();
    },
  };
  return { platform: platform as unknown as ChatPlatformClient, writes, reads };
}

function fakeQuarantines() {
  const stored: StoredQuarantine[] = [];
  const repository = {
    store: (guildId: string, plan: QuarantineRecord, target: { incidentId: string }) => {
      const record: StoredQuarantine = {
        ...plan,
        incident_id: target.incidentId,
        guild_id: guildId,
        taken_at: new Date().toISOString(),
        released_at: null,
        released_by_user: null,
        release_result: null,
      };
      stored.push(record);
      return Promise.resolve(record);
    },
  };
  return { quarantines: repository as unknown as QuarantineRepository, stored };
}

function setup(
  settings: Partial<typeof DEFAULT_ANTINUKE_SETTINGS> = {},
  features = ['ANTINUKE_DETECT', 'ANTINUKE_AUTO_ACTION'],
) {
  const { platform, writes, reads } = fakePlatform();
  const { quarantines, stored } = fakeQuarantines();
  const sut = new ImmediateQuarantine(
    {
      get: () =>
        Promise.resolve({
          ...DEFAULT_ANTINUKE_SETTINGS,
          threshold: 3,
          window_seconds: 10,
          auto_action_enabled: true,
          ...settings,
        }),
    } as unknown as AntiNukeSettingsRepository,
    { get: () => Promise.resolve({ features }) } as unknown as EntitlementsClient,
    { get: () => Promise.reject(new Error('the guild is known')) } as unknown as GuildRegistry,
    platform,
    quarantines,
  );
  return { sut, writes, reads, stored };
}

let entry = 1000;
function deleteBy(actor: string): DestructiveAction {
  entry += 1;
  return {
    guild_id: GUILD,
    platform_guild_id: PLATFORM_GUILD,
    kind: 'channel_delete',
    weight: 1,
    actor_platform_user_id: actor,
    target_id: `c${entry}`,
    audit_log_entry_id: String(entry),
    at: new Date().toISOString(),
  };
}

const from = { platformGuildId: PLATFORM_GUILD, botUserId: BOT, mirror: () => state };

describe(ImmediateQuarantine.name, () => {
  it('quarantines the actor on the action that crosses the threshold, reading only the members', async () => {
    const { sut, writes, reads, stored } = setup();
    await sut.record(deleteBy(RAIDER), from);
    await sut.record(deleteBy(RAIDER), from);
    expect(writes).toEqual([]);
    await sut.record(deleteBy(RAIDER), from);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ actor_platform_user_id: RAIDER, roles_removed: [{ id: 'admin' }] });
    expect(writes).toEqual([`roles ${RAIDER} -> []`]);
    // Owner, roles and the bot's id came from live sync: only the two members were read.
    expect(reads.sort()).toEqual([`member ${RAIDER}`, `member ${BOT}`].sort());
    // Their next actions belong to the same burst: nothing is planned twice.
    await sut.record(deleteBy(RAIDER), from);
    expect(stored).toHaveLength(1);
  });

  it('reads the guild from the platform when live sync does not mirror it', async () => {
    const { sut, writes, reads } = setup();
    for (let i = 0; i < 3; i++) await sut.record(deleteBy(RAIDER), { ...from, mirror: () => null });
    expect(writes).toEqual([`roles ${RAIDER} -> []`]);
    expect(reads).toContain('state');
  });

  it('never acts on the owner or on the bot itself', async () => {
    const { sut, writes, stored } = setup();
    for (let i = 0; i < 3; i++) await sut.record(deleteBy(OWNER), from);
    for (let i = 0; i < 3; i++) await sut.record(deleteBy(BOT), from);
    expect(writes).toEqual([]);
    expect(stored).toEqual([]);
  });

  it('leaves the actor to the workflow without auto-action, for an exempt actor, or without the plan', async () => {
    for (const { settings, features } of [
      { settings: { auto_action_enabled: false }, features: undefined },
      { settings: { exempt_user_ids: [RAIDER] }, features: undefined },
      { settings: { enabled: false }, features: undefined },
      { settings: {}, features: ['ANTINUKE_DETECT'] },
      { settings: {}, features: [] },
    ]) {
      const { sut, writes } = setup(settings, features);
      for (let i = 0; i < 5; i++) await sut.record(deleteBy(RAIDER), from);
      expect(writes).toEqual([]);
    }
  });

  it('counts as the workflow does: below the threshold nothing happens, and never throws', async () => {
    const { sut, writes } = setup({ threshold: 4 });
    for (let i = 0; i < 3; i++) await sut.record(deleteBy(RAIDER), from);
    expect(writes).toEqual([]);
    const failing = new ImmediateQuarantine(
      { get: () => Promise.reject(new Error('database down')) } as unknown as AntiNukeSettingsRepository,
      { get: () => Promise.resolve({ features: [] }) } as unknown as EntitlementsClient,
      {} as GuildRegistry,
      {} as ChatPlatformClient,
      {} as QuarantineRepository,
    );
    await expect(failing.record(deleteBy(RAIDER), from)).resolves.toBeUndefined();
  });
});
