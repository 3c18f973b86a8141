import { PROVIDER_EVENT_TYPES, type ProviderEventType } from '@lib/contracts';
import { IsIn, IsObject, IsString, MaxLength, MinLength } from 'class-validator';

/** A verified provider webhook as webhook intake routes it (RoutedProviderEvent). */
export class RoutedProviderEventDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  event_id!: string;

  @IsIn(PROVIDER_EVENT_TYPES, { message: `event_type must be one of ${PROVIDER_EVENT_TYPES.join(', ')}` })
  event_type!: ProviderEventType;

  @IsObject()
  data!: Record<string, unknown>;
}
