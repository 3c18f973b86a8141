import { PermissionFlagsBits } from 'discord-api-types/v10';

/**
 * The permissions the bot is invited with (least privilege; docs/security.md has the table and why
 * not ADMINISTRATOR), each for what needs it, and nothing else:
 * - ViewChannel: see every channel it snapshots and restores, private ones included;
 * - ManageChannels: recreate, reorder, rename and delete channels (the `channels` scope);
 * - ManageRoles: recreate, reorder and edit roles, set channel overrides (`roles`,
 *   `permission_overrides`), give members their roles back (`member_roles`), and take an actor's
 *   roles away (AntiNuke's auto-action);
 * - ManageGuild: put the guild's settings back (`guild_settings`);
 * - ViewAuditLog: learn who deleted what (live sync and AntiNuke);
 * - BanMembers: read the ban list (snapshots, the `bans` scope) and lift bans made since.
 * The platform lets a bot grant, in a role or an override, only permissions it holds itself: a
 * restore lists what it cannot grant under `skipped`, before approval.
 *
 * One constant for the product's invite and the sandbox's seeded bot, so tests run as a real
 * install does.
 */
export const BOT_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.ManageChannels |
  PermissionFlagsBits.ManageRoles |
  PermissionFlagsBits.ManageGuild |
  PermissionFlagsBits.ViewAuditLog |
  PermissionFlagsBits.BanMembers;
