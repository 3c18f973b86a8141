import { StatementMigration } from '@lib/database';

/**
 * `guilds.access_generation`: moved on by live sync whenever a change it sees can alter who may
 * manage the guild (a member's roles or timeout, a role's permissions, a member leaving or banned).
 * Every replica reads it with the guild row and keys its cached permission answers by it, so one
 * replica's move ends every replica's cached answers for the guild at once.
 */
export class GuildAccessGeneration1766640000000 extends StatementMigration {
  name = 'GuildAccessGeneration1766640000000';

  protected readonly upStatements = [
    `ALTER TABLE recovery.guilds ADD COLUMN access_generation bigint NOT NULL DEFAULT 0`,
  ];

  protected readonly downStatements = [`ALTER TABLE recovery.guilds DROP COLUMN access_generation`];
}
