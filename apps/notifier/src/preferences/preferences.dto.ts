import { IsBoolean } from 'class-validator';

/** The whole set of preferences; a PUT replaces it. */
export class PutNotificationPreferencesDto {
  /** DMs about charges to the payer's card (`subscription.started`). */
  @IsBoolean({ message: 'payment_notifications must be true or false' })
  payment_notifications!: boolean;
}
