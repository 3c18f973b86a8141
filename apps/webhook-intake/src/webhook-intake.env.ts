import { BaseEnv, IsCronExpression, IsHttpUrl, IsIntegerInRange, IsOptionalRedisUrl } from '@lib/config';
import { PROVIDER_WEBHOOK_VERIFICATIONS, type ProviderWebhookVerification } from '@lib/contracts';
import { IsIn, IsNotEmpty, IsString, Matches, MinLength, ValidateIf } from 'class-validator';

export class WebhookIntakeEnv extends BaseEnv {
  override PORT = 3005;

  /**
   * Idempotency keys (`idem:webhook:<source>:<id>`, 24 h; 4 days in `lookup` mode, past the
   * provider's last resend); the database backs them up when Redis is down. Unset (or empty): the
   * keys live in Postgres (`webhook.key_values`), for standalone mode.
   */
  @IsOptionalRedisUrl()
  REDIS_URL?: string;

  /**
   * How a delivery is believed (docs/behaviour.md §4.9). `lookup`, for Toss Payments (which signs
   * no payment event and sends no event id): Toss's `{eventType, createdAt, data}` bodies, each
   * believed only once billing has fetched the payment from the provider with its secret key, and
   * applied as the provider answers. `signature`: the spec's `{eventId, eventType, createdAt, data}`
   * envelope, signed in `Provider-Signature` with WEBHOOK_SECRET, applied as it says.
   */
  @IsIn(PROVIDER_WEBHOOK_VERIFICATIONS, {
    message: `PROVIDER_WEBHOOK_VERIFICATION must be one of ${PROVIDER_WEBHOOK_VERIFICATIONS.join(', ')}`,
  })
  PROVIDER_WEBHOOK_VERIFICATION: ProviderWebhookVerification = 'lookup';

  /**
   * The provider's webhook secret: HMAC-SHA256 key of `Provider-Signature` (docs/behaviour.md
   * §5.4); required with `PROVIDER_WEBHOOK_VERIFICATION=signature`, unused with `lookup`.
   */
  @ValidateIf((env: WebhookIntakeEnv) => env.PROVIDER_WEBHOOK_VERIFICATION === 'signature')
  @IsString()
  @MinLength(16, { message: 'WEBHOOK_SECRET must be at least 16 characters' })
  WEBHOOK_SECRET?: string;

  /** Where verified provider events are routed. */
  @IsHttpUrl()
  BILLING_URL!: string;

  /**
   * Operator tokens, as SHA-256 hex digests separated by commas: the tokens themselves never sit in
   * configuration. `printf %s "$TOKEN" | sha256sum` gives the digest.
   */
  @IsNotEmpty({ message: 'ADMIN_TOKEN_SHA256 must list at least one SHA-256 hex digest' })
  @Matches(/^[0-9a-f]{64}(,[0-9a-f]{64})*$/i, {
    message: 'ADMIN_TOKEN_SHA256 must be SHA-256 hex digests separated by commas',
  })
  ADMIN_TOKEN_SHA256!: string;

  /**
   * Days a `webhook_events` row in a final state is kept after its last change: processed
   * (`success`), `duplicate`, refused for its signature, or a failed delivery of an event routed
   * since. Pending rows, and the failed deliveries of an event not routed since (an operator may
   * still reprocess it), are never deleted. At least 4: a row is what tells a resend of an event
   * (Toss resends for up to 3 days 19 hours) from a new one once its idempotency key has expired.
   */
  @IsIntegerInRange(4, 3650)
  WEBHOOK_EVENTS_RETENTION_DAYS: number = 90;

  /** When the retention job runs, in UTC: nightly, off the hour, away from the 04:00 snapshot job. */
  @IsCronExpression()
  WEBHOOK_EVENTS_RETENTION_CRON = '15 4 * * *';

  /**
   * Requests to `/webhooks/provider` per client address and minute, per replica; over it the answer
   * is 429 and nothing is recorded. A backstop behind the ingress's own limit, and the only one in
   * standalone mode. 0 turns it off.
   */
  @IsIntegerInRange(0)
  WEBHOOK_RATE_LIMIT_PER_MINUTE: number = 600;

  /**
   * Proxies in front of the intake whose X-Forwarded-For is believed for the client address (1
   * behind the ingress); 0 takes the socket's peer, whatever the header says. As the gateway's.
   */
  @IsIntegerInRange(0, 10)
  TRUST_PROXY_HOPS: number = 0;
}
