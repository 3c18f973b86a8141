import { ChatPlatformClient } from '@lib/chat-platform';
import { RESTORE_SCOPES } from '@lib/contracts';
import type { FakeChatPlatform, SeededGuild } from '@lib/sandbox';
import { REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { snapshotMemberRoles } from '../../apps/recovery/src/snapshots/snapshot-payload';
import type { RestoreHarness } from './restore-harness';
import { idMap, raid, storedPayload } from './restore-scenario';

/** The spec's four, members' roles and bans. */
export const SIX_SCOPES = RESTORE_SCOPES.filter(
  (scope) => !['emojis', 'stickers', 'guild_images'].includes(scope),
);
export const CROWD = 120;
/** Members the raid strips of Member, and those it bans (50), by crowd index. */
const STRIPPED = range(0, 20);
const BANNED = range(20, 70);
/** Banned before the snapshot: the restore keeps that ban. */
const BANNED_BEFORE = CROWD - 1;

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/** The platform's REST client with a token's rights: what the raider (or a moderator) uses for bans. */
function rest(platformUrl: string, token = 'fake-bot-token'): REST {
  return new REST({ version: '10', api: `${platformUrl}/api` }).setToken(token);
}

/**
 * A guild of 120 members (`crowd-<i>`, Members, every fourth a Moderator), one of them banned before
 * the known-good snapshot; then a raid: the roles and channels damage of `raid`, which deletes the
 * Moderator role, 20 members stripped of Member, and 50 members banned.
 */
export async function memberRaid(harness: RestoreHarness, platform: FakeChatPlatform) {
  const platformUrl = platform.url;
  const crowd = (seeded: SeededGuild, i: number) => seeded.members[`crowd-${i}`];
  const scenario = await harness.protectedGuild({
    crowd: CROWD,
    beforeSnapshot: async (seeded) => {
      await rest(platformUrl).put(Routes.guildBan(seeded.guildId, crowd(seeded, BANNED_BEFORE)), {
        body: {},
        reason: 'spam, long ago',
      });
    },
  });
  const { seeded } = scenario;
  await raid(platform, seeded);
  const raider = new ChatPlatformClient({ apiBaseUrl: `${platformUrl}/api`, botToken: 'fake-bot-token' });
  for (const i of STRIPPED) {
    const member = await raider.getMember(seeded.guildId, crowd(seeded, i));
    await raider.setMemberRoles(
      seeded.guildId,
      member.user.id,
      member.roles.filter((role) => role !== seeded.roles.Member),
    );
  }
  await Promise.all(
    BANNED.map((i) =>
      rest(platformUrl).put(Routes.guildBan(seeded.guildId, crowd(seeded, i)), { body: {}, reason: 'raid' }),
    ),
  );
  return {
    ...scenario,
    banned: BANNED.map((i) => crowd(seeded, i)),
    bannedBefore: crowd(seeded, BANNED_BEFORE),
  };
}

/** The members of this guild updated (`PATCH /guilds/:guild/members/:user`, answered) since `since`. */
export function memberUpdates(platform: FakeChatPlatform, platformGuildId: string, since: number): string[] {
  const updated: string[] = [];
  for (const request of platform.requestLog()) {
    const match = /^\/guilds\/(\d+)\/members\/(\d+)$/.exec(request.path);
    if (
      request.at >= since &&
      request.method === 'PATCH' &&
      match?.[1] === platformGuildId &&
      request.status < 300
    ) {
      updated.push(match[2]);
    }
  }
  return updated;
}

/**
 * What "undone" means for the members: each member still in the guild holds every role they held in
 * the snapshot (recreated roles followed to their new ids); the raid's bans are lifted and the older
 * one kept; and each member was updated at most once, only those who lacked a role (nobody else).
 */
export async function expectMembersUndone(
  harness: RestoreHarness,
  platform: FakeChatPlatform,
  scenario: Awaited<ReturnType<typeof memberRaid>>,
  job: { preview_diff: { members_to_update: number }; created_at: string },
) {
  const { seeded, guildId, snapshotId } = scenario;
  const held = snapshotMemberRoles(await storedPayload(harness.dataSource, snapshotId))!;
  const toLive = await idMap(harness.dataSource, guildId);
  const live = new Map(platform.guild(seeded.guildId).members.map((m) => [m.user_id, new Set(m.roles)]));
  const missing: string[] = [];
  let present = 0;
  for (const [memberId, roles] of held) {
    const now = live.get(memberId);
    if (!now) continue;
    present++;
    for (const role of roles) if (!now.has(toLive('role', role))) missing.push(`${memberId}: ${role}`);
  }
  expect(missing).toEqual([]);
  expect(present).toBe(held.size - BANNED.length);

  const bans = new Set((await harness.reader.listBans(seeded.guildId)).map((ban) => ban.user.id));
  expect(scenario.banned.filter((id) => bans.has(id))).toEqual([]);
  expect(bans.has(scenario.bannedBefore)).toBe(true);

  const updated = memberUpdates(platform, seeded.guildId, Date.parse(job.created_at));
  expect(updated.length).toBe(new Set(updated).size);
  expect(updated.length).toBe(job.preview_diff.members_to_update);
}
