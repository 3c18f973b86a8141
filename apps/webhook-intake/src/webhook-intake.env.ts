import { BaseEnv, HTTP_URL } from '@lib/config';
import { Transform } from 'class-transformer';
import { IsNotEmpty, IsOptional, IsString, IsUrl, Matches, MinLength } from 'class-validator';

export class WebhookIntakeEnv extends BaseEnv {
  override PORT = 3005;

  /**
   * Idempotency keys (`idem:webhook:<source>:<id>`, 24 h); the database backs them up when Redis is
   * down. Unset (or empty): the keys live in Postgres (`webhook.key_values`), for standalone mode.
   */
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL?: string;

  /** The provider's webhook secret: HMAC-SHA256 key of `Provider-Signature` (spec §5.4). */
  @IsString()
  @MinLength(16, { message: 'WEBHOOK_SECRET must be at least 16 characters' })
  WEBHOOK_SECRET!: string;

  /** Where verified provider events are routed. */
  @IsUrl(HTTP_URL, { message: 'BILLING_URL must be an http(s) URL' })
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
}
