import { PermissionFlagsBits } from 'discord-api-types/v10';

/**
 * The permissions the bot is invited with: ADMINISTRATOR (docs/security.md has the reasoning).
 * A restore must recreate roles and channel overwrites carrying any permission a guild uses, and
 * the platform lets a bot grant, in a role or an overwrite, only permissions it holds itself, and
 * MANAGE_ROLES in an overwrite only as an administrator: with any smaller set, part of every raid
 * could not be undone. One constant for the product's invite and the sandbox's seeded bot, so tests
 * run as a real install does.
 */
export const BOT_PERMISSIONS = PermissionFlagsBits.Administrator;

/**
 * The least a bot needs for each scope to run at all, for an owner who unticks ADMINISTRATOR on the
 * consent page. With it the preview lists, before approval, every change the bot cannot make (a
 * role or overwrite granting bits it lacks, MANAGE_ROLES in an overwrite), and the restore skips
 * exactly those:
 * - ViewChannel: see every channel it snapshots and restores, private ones included;
 * - ManageChannels: recreate, reorder, rename and delete channels (the `channels` scope);
 * - ManageRoles: recreate, reorder and edit roles, set channel overrides (`roles`,
 *   `permission_overrides`), give members their roles back (`member_roles`), and take an actor's
 *   roles away (AntiNuke's auto-action);
 * - ManageGuild: put the guild's settings back (`guild_settings`);
 * - ViewAuditLog: learn who deleted what (live sync and AntiNuke);
 * - BanMembers: read the ban list (snapshots, the `bans` scope) and lift bans made since;
 * - CreateGuildExpressions and ManageGuildExpressions: make, rename and delete custom emojis and
 *   stickers (the `emojis` and `stickers` scopes);
 * - ManageWebhooks: read the guild's webhooks (snapshots), make, edit and delete them (`webhooks`).
 */
export const LEAST_BOT_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.ManageChannels |
  PermissionFlagsBits.ManageRoles |
  PermissionFlagsBits.ManageGuild |
  PermissionFlagsBits.ViewAuditLog |
  PermissionFlagsBits.BanMembers |
  PermissionFlagsBits.CreateGuildExpressions |
  PermissionFlagsBits.ManageGuildExpressions |
  PermissionFlagsBits.ManageWebhooks;
