import {
  IsBrowserUrl,
  IsEnvBoolean,
  IsHttpUrl,
  IsIntegerInRange,
  IsRequiredString,
  KafkaEnv,
} from '@lib/config';
import { IsString, Matches, MaxLength } from 'class-validator';

export class BillingEnv extends KafkaEnv {
  override PORT = 3002;

  /** The provider's API base (without `/v1`); the fake provider's in tests and the sandbox. */
  @IsHttpUrl()
  PROVIDER_API_URL = 'https://api.tosspayments.com';

  /** Merchant secret key: the Basic-auth user of every provider call (docs/behaviour.md §4.10a). */
  @IsRequiredString()
  PROVIDER_SECRET_KEY!: string;

  /** Public key of the provider's card widget, handed to the dashboard by `prepare`. */
  @IsRequiredString()
  PROVIDER_CLIENT_KEY!: string;

  /**
   * The provider's JS SDK, which the dashboard loads on the checkout (handed out by `prepare`) and
   * whose `requestBillingAuth` takes the payer to the card form: the provider's CDN by default, the
   * sandbox provider's stand-in in standalone mode and the browser tests. https in production. The
   * gateway's Content-Security-Policy allows scripts from its origin and no other: give billing and
   * the gateway the same value.
   */
  @IsBrowserUrl()
  PROVIDER_SDK_URL = 'https://js.tosspayments.com/v2/standard';

  /** docs/behaviour.md §8: 30 s. Lower only in tests, to keep the "provider never answers" case short. */
  @IsIntegerInRange(500, 120_000)
  PROVIDER_TIMEOUT_MS: number = 30_000;

  /**
   * Days the record of an applied provider event (`billing.provider_events`) is kept. It makes a
   * resent event a no-op; the provider resends for days, not months, and webhook intake keeps its
   * own copy of each delivery for WEBHOOK_EVENTS_RETENTION_DAYS (90). The default keeps a year and a
   * month, past a card dispute's window. Charges themselves (`payment_attempts`) are never deleted.
   */
  @IsIntegerInRange(30, 3650)
  PROVIDER_EVENTS_RETENTION_DAYS: number = 400;

  /**
   * AES-256 key for stored billing keys (docs/behaviour.md §2.5): 32 bytes as 64 hex characters or base64.
   * Checked here so a missing or short key stops the app at start (docs/behaviour.md §5.7).
   */
  @Matches(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/, {
    message: 'BILLING_KEY_ENCRYPTION_KEY must be 32 bytes as 64 hex characters or base64',
  })
  BILLING_KEY_ENCRYPTION_KEY!: string;

  /** Recovery answers MANAGE_GUILD checks and guild names. */
  @IsHttpUrl()
  RECOVERY_URL!: string;

  /** Licensing serves the plan catalogue (prices) and the guild's licence. */
  @IsHttpUrl()
  LICENSING_URL!: string;

  /** Shown on the card statement as the start of the order name. */
  @IsString()
  @MaxLength(40)
  SERVICE_DISPLAY_NAME = 'GuildKeeper';

  /** Run renewals, downgrades and cancel finalisation here (every replica may; each row runs once). */
  @IsEnvBoolean()
  BILLING_JOBS_ENABLED: boolean = true;

  /** How often the subscription jobs look for due work. */
  @IsIntegerInRange(100, 3_600_000)
  BILLING_JOBS_INTERVAL_MS: number = 60_000;

  /**
   * A charge whose outcome is unknown (no answer, a temporary or unknown refusal) is looked up at
   * the provider by order id this long after it was created, then after twice as long each time:
   * a payment found settles it; none found means it never happened, and it is sent again under the
   * same order id and Idempotency-Key (only within the key's 15 days at the provider). Keep it above
   * PROVIDER_TIMEOUT_MS. A minute, because Toss sends no webhook when a billing charge completes:
   * a payer whose first charge timed out waits on the checkout page for this look-up.
   */
  @IsIntegerInRange(1_000, 86_400_000)
  PAYMENT_RECONCILE_AFTER_MS: number = 60_000;

  /** The longest wait between two look-ups of a pending charge (the back-off's ceiling). */
  @IsIntegerInRange(1_000, 86_400_000)
  PAYMENT_CHECK_MAX_INTERVAL_MS: number = 6 * 3_600_000;

  /**
   * A charge still pending this long after it was created logs the operator alert
   * `payment_unsettled` once (docs/runbook.md).
   */
  @IsIntegerInRange(1_000, 30 * 86_400_000)
  PAYMENT_UNSETTLED_ALERT_AFTER_MS: number = 3_600_000;

  /**
   * How long a checkout `prepare` starts may be confirmed (minutes): the payer's time on the
   * provider's card form and back. A confirm after that is refused (`ErrCheckoutExpired`) and the
   * payer starts again; nothing was charged.
   */
  @IsIntegerInRange(1, 1_440)
  CHECKOUT_TTL_MINUTES: number = 30;
}
