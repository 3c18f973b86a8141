import type { CategorySpec, GuildSpec } from '@lib/sandbox';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';

export interface GeneratedGuildSize {
  name: string;
  /** Besides @everyone and the bot's managed role. */
  customRoles: number;
  categories: number;
  channelsPerCategory: number;
  members: number;
  /** Roles each member holds (default 2), spread over the custom roles. */
  rolesPerMember?: number;
  /** Text channel topics are padded to this length (payload weight). */
  topicLength?: number;
}

/**
 * A guild of the given size for the benchmarks: categories with overwrites, text and voice
 * channels with 2-4 overwrites each (@everyone, roles and a member), members holding roles, and
 * settings pointing at channels. Names are `role-<i>`, `category-<c>`, `channel-<c>-<n>`,
 * `member-<i>`.
 */
export function generatedGuild(size: GeneratedGuildSize): GuildSpec {
  const { customRoles, channelsPerCategory, members: memberCount } = size;
  const roles = Array.from({ length: customRoles }, (_, i) => ({
    name: `role-${i}`,
    permissions: i % 10 === 0 ? P.ManageMessages | P.KickMembers : P.SendMessages | P.ViewChannel,
    color: (i * 2654435761) % 0xffffff,
    hoist: i % 25 === 0,
    mentionable: i % 3 === 0,
  }));
  const held = size.rolesPerMember ?? 2;
  const members = Array.from({ length: memberCount }, (_, i) => ({
    username: `member-${i}`,
    roles: [
      ...new Set(
        Array.from(
          { length: held },
          (_, r) => `role-${(i + Math.floor((r * customRoles) / held)) % customRoles}`,
        ),
      ),
    ],
  }));
  const categories: CategorySpec[] = Array.from({ length: size.categories }, (_, c) => ({
    name: `category-${c}`,
    overwrites: [
      { role: '@everyone', deny: P.ViewChannel },
      { role: `role-${c % customRoles}`, allow: P.ViewChannel },
    ],
    channels: Array.from({ length: channelsPerCategory }, (_, n) => {
      const k = c * channelsPerCategory + n;
      const voice = n % 5 === 4;
      const overwrites = [
        { role: '@everyone', deny: P.SendMessages },
        { role: `role-${k % customRoles}`, allow: P.SendMessages | P.AttachFiles },
        { member: `member-${k % memberCount}`, allow: P.ManageMessages },
        { role: `role-${(k + 50) % customRoles}`, deny: P.MentionEveryone },
      ].slice(0, 2 + (k % 3));
      return {
        name: `channel-${c}-${n}`,
        type: voice ? ('voice' as const) : undefined,
        topic: voice ? undefined : `Topic of channel ${c}-${n}: `.padEnd(size.topicLength ?? 0, '.'),
        rate_limit_per_user: voice ? undefined : n % 4,
        overwrites,
      };
    }),
  }));
  return {
    name: size.name,
    roles,
    members,
    categories,
    settings: {
      verification_level: 2,
      afk_timeout: 900,
      afk_channel: 'channel-1-4',
      system_channel: 'channel-1-0',
    },
  };
}
