import { PLAN_CODES, type PlanCode } from '@lib/contracts';
import { IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';
import type { CardView } from '../subscriptions/subscription';

const PLAN_MESSAGE = `must be one of ${PLAN_CODES.join(', ')}`;

export class PrepareQuery {
  @IsUUID('all', { message: 'guild_id must be a UUID' })
  guild_id!: string;

  @IsIn(PLAN_CODES, { message: `plan ${PLAN_MESSAGE}` })
  plan!: PlanCode;
}

export class ConfirmDto {
  /**
   * The checkout `prepare` started (its `checkout_id`), which the provider's return address
   * carries back: confirm refuses any other (unknown, another user's, expired, already used, or
   * for another guild, plan or customer key), before the provider is asked anything.
   */
  @IsUUID('all', { message: 'checkout_id must be the value prepare returned' })
  checkout_id!: string;

  /**
   * The one-time key the provider's card widget returned: the new card becomes the payer's card for
   * all their subscriptions. Leave it out to pay with the card on file (prepare's `saved_card`).
   */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(300)
  auth_key?: string;

  @Matches(/^user_[0-9a-f-]{36}$/, { message: 'customer_key must be the value prepare returned' })
  customer_key!: string;

  @IsUUID('all', { message: 'guild_id must be a UUID' })
  guild_id!: string;

  @IsIn(PLAN_CODES, { message: `plan_code ${PLAN_MESSAGE}` })
  plan_code!: PlanCode;
}

/** docs/behaviour.md §4.4: what the dashboard hands to the provider's card widget. */
export interface PrepareView {
  /**
   * This checkout, bound to the user, guild, plan and customer key: confirm needs it, once, before
   * `checkout_expires_at`. The dashboard puts it in the card form's return address.
   */
  checkout_id: string;
  /** When the checkout can no longer be confirmed (`CHECKOUT_TTL_MINUTES` after prepare). */
  checkout_expires_at: string;
  customer_key: string;
  order_name: string;
  amount: number;
  provider_client_key: string;
  /**
   * Where the dashboard loads the provider's JS SDK from (`loadTossPayments(client key, {src})`),
   * whose `payment({customerKey}).requestBillingAuth(...)` takes the payer to the card form.
   */
  provider_sdk_url: string;
  guild_id: string;
  guild_name: string;
  plan: PlanCode;
  /**
   * The payer's running subscriptions (active or past due): a new card replaces the card on file
   * for every one of them, which the checkout says before the payer confirms.
   */
  payer_subscriptions: number;
  /**
   * The payer's card on file, which confirm without `auth_key` charges (docs/behaviour.md §4.5: the billing key
   * is reused for another guild); null when there is none, and the card widget must run.
   */
  saved_card: CardView | null;
}
