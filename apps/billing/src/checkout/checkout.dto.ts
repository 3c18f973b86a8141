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
  plan: PlanCode;
  /**
   * The payer's card on file, which confirm without `auth_key` charges (docs/behaviour.md §4.5: the billing key
   * is reused for another guild); null when there is none, and the card widget must run.
   */
  saved_card: CardView | null;
}
