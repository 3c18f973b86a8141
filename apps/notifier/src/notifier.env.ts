import { IsHttpUrl, IsIntegerInRange, IsRequiredString, ConsumerEnv } from '@lib/config';

export class NotifierEnv extends ConsumerEnv {
  override PORT = 3004;

  /** The chat platform's REST API without the version; the fake platform's in tests and the sandbox. */
  @IsHttpUrl()
  DISCORD_API_URL = 'https://discord.com/api';

  /** The bot sends the DMs. */
  @IsRequiredString()
  DISCORD_BOT_TOKEN!: string;

  /** Recovery answers MANAGE_GUILD checks for the audit log. */
  @IsHttpUrl()
  RECOVERY_URL!: string;

  /** Licensing answers each guild's plan for the audit log's retention. */
  @IsHttpUrl()
  LICENSING_URL!: string;

  /** How often the DM sender looks for due messages (on every replica; each DM is claimed by one). */
  @IsIntegerInRange(50, 60_000)
  DM_POLL_INTERVAL_MS: number = 1_000;

  /** First wait after a DM failed for a reason worth retrying; doubled each time, at most an hour. */
  @IsIntegerInRange(10, 3_600_000)
  DM_RETRY_BASE_MS: number = 30_000;

  /** Attempts before a DM is given up as `failed` (with the default base: about 8 h of trying). */
  @IsIntegerInRange(1, 50)
  DM_MAX_ATTEMPTS: number = 12;

  /** A user gets at most one test DM in this many seconds (it is a real DM on the platform). */
  @IsIntegerInRange(1, 86_400)
  TEST_DM_INTERVAL_SECONDS: number = 30;

  /**
   * Days a DM's record (`notification.notifications`) is kept once it is final: sent, suppressed,
   * undeliverable or failed. It answers "was I sent that DM?" for a month; nothing reads it after
   * (a redelivered event is stopped by processed_events first). A pending DM is never deleted.
   */
  @IsIntegerInRange(1, 3650)
  NOTIFICATIONS_RETENTION_DAYS: number = 30;
}
