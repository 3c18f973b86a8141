import {
  PROVIDER_EVENT_TYPES,
  PROVIDER_WEBHOOK_VERIFICATIONS,
  type ProviderEventType,
  type ProviderWebhookVerification,
  TOSS_EVENT_TYPES,
  type TossEventType,
} from '@lib/contracts';
import { IsIn, IsObject, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

const EVENT_TYPES = [...PROVIDER_EVENT_TYPES, ...TOSS_EVENT_TYPES];

/**
 * A provider webhook as webhook intake routes it (RoutedProviderEvent): a signed event of the spec's
 * (`verification` absent or `signature`), or a Toss delivery for billing to look up (`lookup`).
 */
export class RoutedProviderEventDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  event_id!: string;

  @IsIn(EVENT_TYPES, { message: `event_type must be one of ${EVENT_TYPES.join(', ')}` })
  event_type!: ProviderEventType | TossEventType;

  @IsObject()
  data!: Record<string, unknown>;

  @IsOptional()
  @IsIn(PROVIDER_WEBHOOK_VERIFICATIONS, {
    message: `verification must be one of ${PROVIDER_WEBHOOK_VERIFICATIONS.join(', ')}`,
  })
  verification?: ProviderWebhookVerification;
}
