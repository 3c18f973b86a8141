import { IsBoolean, IsOptional } from 'class-validator';

/** The preferences; a switch left out keeps its value (older clients send only the first). */
export class PutNotificationPreferencesDto {
  /** DMs about charges to the payer's card (`subscription.started`, `subscription.card_changed`). */
  @IsBoolean({ message: 'payment_notifications must be true or false' })
  payment_notifications!: boolean;

  /** DMs when a restore the user started completes, fails or is stopped. */
  @IsOptional()
  @IsBoolean({ message: 'restore_notifications must be true or false' })
  restore_notifications?: boolean;

  /** DMs to a guild's owner when AntiNuke opens an incident. */
  @IsOptional()
  @IsBoolean({ message: 'incident_notifications must be true or false' })
  incident_notifications?: boolean;
}

/** What a test DM said, and when the platform took it. */
export interface TestDmView {
  sent_at: string;
  content: string;
  platform_message_id: string;
}
