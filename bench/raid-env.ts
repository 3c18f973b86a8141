/**
 * The raid bench's database, set before test-env's defaults (which name the integration database):
 * RAID_DATABASE_URL, or guildkeeper_raid on the local server. It is dropped and migrated afresh at
 * each run, so that rows other runs left (a lockdown in a guild this run's platform does not know,
 * retried by the lifter) spend none of the bot's requests during the raids.
 */
process.env.DATABASE_URL =
  process.env.RAID_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/guildkeeper_raid';
