import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { type GuildSpec, type OverwriteSpec, memberSpecs } from './guild-seed';

const MEMBER = P.ViewChannel | P.SendMessages | P.ReadMessageHistory | P.AddReactions | P.Connect | P.Speak;
const MODERATOR =
  P.KickMembers | P.BanMembers | P.ManageMessages | P.MuteMembers | P.MoveMembers | P.ModerateMembers;

/** The Staff category's overwrites, and those of staff-chat, which keeps them as a synced channel does. */
const staffOnly = (): OverwriteSpec[] => [
  { role: '@everyone', deny: P.ViewChannel },
  { role: 'Helper', allow: P.ViewChannel },
  { role: 'Moderator', allow: P.ViewChannel },
];

/** The demo guild's crowd, beyond its five named members (and the owner and the bot). */
export const DEMO_CROWD_SIZE = 300;

/**
 * The roles of the crowd's member at `index`, spread over the demo's roles as a community's are:
 * most are Members, half Verified, fewer hold the higher roles, a few are Muted instead. Every one
 * is below the bot's role and none is managed, so the bot can give each back.
 */
function crowdRoles(index: number): string[] {
  if (index % 25 === 24) return ['Muted'];
  const roles = ['Member'];
  if (index % 2 === 0) roles.push('Verified');
  if (index % 10 === 3) roles.push('VIP');
  if (index % 15 === 5) roles.push('Event Host');
  if (index % 30 === 7) roles.push('Helper');
  if (index % 60 === 11) roles.push('Moderator');
  if (index % 150 === 42) roles.push('Admin');
  return roles;
}

/**
 * A realistic community guild: 8 roles under the bot's, 4 categories holding 20 channels of every
 * type, private staff channels, overwrites for roles and a member, channel settings, and a crowd
 * of 300 members (`member-0001`...) holding those roles beside its five named members. Each call
 * gives a fresh spec, so a test may change it.
 */
export function demoGuildSpec(name = 'Demo Guild'): GuildSpec {
  return {
    name,
    owner: { username: 'guild-owner' },
    settings: {
      description: 'A guild to snapshot and restore',
      verification_level: 2,
      default_message_notifications: 1,
      explicit_content_filter: 2,
      afk_timeout: 900,
      system_channel_flags: 1,
      preferred_locale: 'en-US',
      afk_channel: 'AFK',
      system_channel: 'welcome',
      rules_channel: 'rules',
      public_updates_channel: 'mod-log',
    },
    // VIP's role emoji needs it (topics/permissions: role icons need ROLE_ICONS).
    features: ['ROLE_ICONS'],
    roles: [
      { name: 'Member', permissions: MEMBER, color: 0x99aab5 },
      { name: 'Muted', permissions: 0n },
      { name: 'Verified', permissions: MEMBER | P.AttachFiles | P.EmbedLinks, color: 0x2ecc71 },
      {
        name: 'VIP',
        permissions: MEMBER | P.PrioritySpeaker,
        color: 0xf1c40f,
        hoist: true,
        unicode_emoji: '⭐',
      },
      { name: 'Event Host', permissions: MEMBER | P.ManageEvents, color: 0x9b59b6, mentionable: true },
      { name: 'Helper', permissions: MEMBER | P.ManageMessages, color: 0x3498db, hoist: true },
      { name: 'Moderator', permissions: MEMBER | MODERATOR, color: 0xe67e22, hoist: true, mentionable: true },
      { name: 'Admin', permissions: P.Administrator, color: 0xe74c3c, hoist: true },
    ],
    categories: [
      {
        name: 'Information',
        overwrites: [{ role: '@everyone', deny: P.SendMessages }],
        channels: [
          { name: 'rules', topic: 'Read these first' },
          { name: 'announcements', type: 'announcement', topic: 'News from the team' },
          { name: 'welcome' },
          { name: 'faq', topic: 'Questions we hear often' },
        ],
      },
      {
        name: 'Community',
        overwrites: [{ role: 'Muted', deny: P.SendMessages | P.AddReactions | P.Speak }],
        channels: [
          { name: 'general', topic: 'Anything goes', rate_limit_per_user: 5 },
          { name: 'introductions' },
          { name: 'media', overwrites: [{ role: 'Verified', allow: P.AttachFiles }] },
          { name: 'memes', nsfw: true, rate_limit_per_user: 30 },
          { name: 'bot-commands', overwrites: [{ role: 'Member', allow: P.UseApplicationCommands }] },
          { name: 'suggestions', type: 'forum', topic: 'One idea per post' },
          { name: 'events', overwrites: [{ role: 'Event Host', allow: P.MentionEveryone | P.ManageEvents }] },
        ],
      },
      {
        name: 'Voice',
        channels: [
          { name: 'Lounge', type: 'voice', bitrate: 96_000 },
          { name: 'Gaming', type: 'voice', user_limit: 10 },
          { name: 'AFK', type: 'voice', overwrites: [{ role: '@everyone', deny: P.Speak }] },
          { name: 'Town Hall', type: 'stage', bitrate: 64_000 },
        ],
      },
      {
        name: 'Staff',
        overwrites: staffOnly(),
        channels: [
          { name: 'staff-chat', overwrites: staffOnly() },
          {
            name: 'mod-log',
            overwrites: [
              { role: '@everyone', deny: P.ViewChannel },
              { role: 'Moderator', allow: P.ViewChannel, deny: P.SendMessages },
              { member: 'alice', allow: P.ViewChannel | P.SendMessages },
            ],
          },
          {
            name: 'admin-only',
            overwrites: [
              { role: '@everyone', deny: P.ViewChannel },
              { role: 'Moderator', deny: P.ViewChannel },
            ],
          },
          {
            name: 'staff-voice',
            type: 'voice',
            overwrites: [
              { role: '@everyone', deny: P.ViewChannel | P.Connect },
              { role: 'Moderator', allow: P.ViewChannel | P.Connect },
            ],
          },
          { name: 'reports', topic: 'Member reports' },
        ],
      },
    ],
    members: [
      { username: 'alice', roles: ['Member', 'Admin'] },
      { username: 'bob', roles: ['Member', 'Verified', 'Moderator'] },
      { username: 'carol', roles: ['Member', 'Verified', 'VIP', 'Event Host'] },
      { username: 'dave', roles: ['Member', 'Helper'] },
      { username: 'erin', roles: ['Muted'], dmsClosed: true },
      ...memberSpecs(DEMO_CROWD_SIZE, { roles: crowdRoles }),
    ],
  };
}
