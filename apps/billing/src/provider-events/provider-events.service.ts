import { Injectable, Logger } from '@nestjs/common';
import {
  isProviderEventType,
  isTossEventType,
  type ProviderEventData,
  type ProviderEventOutcome,
} from '@lib/contracts';
import { ValidationError } from '@lib/problem-details';
import { DataSource, type EntityManager } from 'typeorm';
import { BillingKeysRepository } from '../billing-keys/billing-keys.repository';
import { PaymentAttemptsRepository } from '../payments/payment-attempts.repository';
import { type DecidedCharge, PaymentsService, type Settlement } from '../payments/payments.service';
import {
  PaymentProviderClient,
  type ProviderPayment,
  ProviderUnavailableError,
} from '../provider/payment-provider.client';
import type { RoutedProviderEventDto } from './provider-events.dto';
import { SubscriptionErrors } from '../subscriptions/subscriptions.errors';
import { ProviderEventsRepository, repeatOf } from './provider-events.repository';
import { claimNote, truthOf } from './provider-truth';

type Effect = (manager: EntityManager) => Promise<ProviderEventOutcome>;

/**
 * Applies the provider's webhooks (docs/behaviour.md §4.9 step 4). The charge response stays the primary
 * authority: a webhook settles only a charge still pending, and repeats of any event change nothing.
 *
 * A signed event (`signature` mode) is applied as its data says. A Toss delivery (`lookup` mode) is
 * unsigned, so its data proves nothing: billing, which holds the secret key, fetches the payment it
 * names from the provider and applies what the provider answers. A payment the provider does not
 * know is `unconfirmed`: recorded, nothing applied. A look-up that cannot reach the provider is an
 * error (503), which webhook intake answers 500, so the provider resends.
 *
 * Webhook intake delivers at least once: an event whose routing answer it could not record is
 * routed again. Billing therefore remembers each event it applied (`billing.provider_events`), in
 * the transaction of the event's effect, and answers a repeat from that record: an event is applied
 * once, and its record exists exactly when its effect does.
 */
@Injectable()
export class ProviderEventsService {
  private readonly logger = new Logger(ProviderEventsService.name);
  private readonly applied = new ProviderEventsRepository();

  constructor(
    private readonly dataSource: DataSource,
    private readonly payments: PaymentsService,
    private readonly attempts: PaymentAttemptsRepository,
    private readonly billingKeys: BillingKeysRepository,
    private readonly provider: PaymentProviderClient,
  ) {}

  async apply(event: RoutedProviderEventDto): Promise<ProviderEventOutcome> {
    // A malformed event is refused before anything is looked up or recorded: its resend after a fix
    // is applied. A look-up at the provider is made here, outside the transaction.
    const effect = event.verification === 'lookup' ? await this.lookedUp(event) : this.effectOf(event);
    return this.dataSource.transaction(async (manager) => {
      // Deliveries of one event at the same time wait here for each other: the first applies it.
      await this.applied.lockEvent(manager, event.event_id);
      const earlier = await this.applied.find(manager, event.event_id);
      if (earlier) return repeatOf(earlier);
      const outcome = await effect(manager);
      await this.applied.record(manager, event, outcome);
      return outcome;
    });
  }

  /**
   * A Toss delivery: the payment it names, as the provider reports it now, and what applying that
   * does; or, for BILLING_DELETED, the card on file holding the key. Toss offers no look-up of a
   * billing key: the key itself is a secret only the provider and billing hold, so a delivery that
   * names one of ours is taken for the provider's (an unknown key changes nothing).
   */
  private async lookedUp(event: RoutedProviderEventDto): Promise<Effect> {
    const type = event.event_type;
    if (!isTossEventType(type)) {
      throw new ValidationError(`a look-up event must be one of Toss's types, not ${type}`, [
        { field: 'event_type', message: `event_type ${type} is not a Toss event type` },
      ]);
    }
    if (type === 'BILLING_DELETED') {
      const { billingKey } = read(event, type, { billingKey: 'string' });
      // Toss's body carries no deletion time; the card is deleted as of when billing learns of it.
      return (manager) => this.billingKeyDeleted(manager, billingKey, new Date());
    }
    const { paymentKey } = read(event, type, { paymentKey: 'string' });
    const claimed = typeof event.data.claimedStatus === 'string' ? event.data.claimedStatus : null;
    const payment = await this.fetchPayment(paymentKey);
    if (!payment || payment.paymentKey !== paymentKey) {
      return () =>
        Promise.resolve({
          outcome: 'unconfirmed',
          detail: `the provider knows no payment with this key${claimed ? ` (the delivery said ${claimed})` : ''}`,
        });
    }
    return (manager) => this.applyTruth(manager, payment, claimed);
  }

  /** The payment as the provider reports it, or null when it knows none by that key. */
  private async fetchPayment(paymentKey: string): Promise<ProviderPayment | null> {
    try {
      return await this.provider.getPayment(paymentKey);
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) throw error;
      throw SubscriptionErrors.providerUnavailable(
        `The payment could not be looked up at the provider (${error.reason}); resend later.`,
      );
    }
  }

  private async applyTruth(
    manager: EntityManager,
    payment: ProviderPayment,
    claimed: string | null,
  ): Promise<ProviderEventOutcome> {
    const truth = truthOf(payment);
    const note = claimNote(claimed, payment.status);
    let outcome: ProviderEventOutcome;
    switch (truth.kind) {
      case 'approved':
        outcome = await this.settle(manager, truth.orderId, {
          kind: 'approved',
          paymentKey: truth.paymentKey,
          approvedAt: truth.approvedAt,
        });
        break;
      case 'declined':
        outcome = await this.settle(manager, truth.orderId, {
          kind: 'rejected',
          status: 400,
          code: truth.code,
          message: truth.message,
        });
        break;
      case 'canceled':
        outcome = await this.canceled(manager, truth.orderId, truth.canceledAt);
        break;
      case 'undecided':
        outcome = {
          outcome: 'ignored',
          detail: `the provider reports the payment ${truth.status}, not final`,
        };
        break;
    }
    return { ...outcome, detail: `provider reports ${payment.status}${note}: ${outcome.detail}` };
  }

  private async billingKeyDeleted(
    manager: EntityManager,
    billingKey: string,
    at: Date,
  ): Promise<ProviderEventOutcome> {
    const deleted = await this.billingKeys.markDeleted(manager, billingKey, at);
    return deleted
      ? { outcome: 'applied', detail: 'the card on file is marked deleted' }
      : { outcome: 'already_applied', detail: 'no card on file holds this billing key (any more)' };
  }

  /** A signed event's fields checked, and what applying it does. */
  private effectOf(event: RoutedProviderEventDto): Effect {
    if (!isProviderEventType(event.event_type)) {
      throw new ValidationError(`a signed event must be one of the spec's types, not ${event.event_type}`, [
        { field: 'event_type', message: `event_type ${event.event_type} needs verification lookup` },
      ]);
    }
    switch (event.event_type) {
      case 'PAYMENT.DONE': {
        const data = read(event, 'PAYMENT.DONE', {
          paymentKey: 'string',
          orderId: 'string',
          approvedAt: 'date',
        });
        return (manager) =>
          this.settle(manager, data.orderId, {
            kind: 'approved',
            paymentKey: data.paymentKey,
            approvedAt: new Date(data.approvedAt),
          });
      }
      case 'PAYMENT.FAILED': {
        const data = read(event, 'PAYMENT.FAILED', { orderId: 'string', failure: 'object' });
        const failure = data.failure as Partial<ProviderEventData['PAYMENT.FAILED']['failure']>;
        return (manager) =>
          this.settle(manager, data.orderId, {
            kind: 'rejected',
            status: 400,
            code: typeof failure.code === 'string' ? failure.code : 'PAYMENT_FAILED',
            message: typeof failure.message === 'string' ? failure.message : '',
          });
      }
      case 'PAYMENT.CANCELED': {
        const data = read(event, 'PAYMENT.CANCELED', { orderId: 'string', canceledAt: 'date' });
        return (manager) => this.canceled(manager, data.orderId, new Date(data.canceledAt));
      }
      case 'BILLING_KEY.DELETED': {
        const data = read(event, 'BILLING_KEY.DELETED', { billingKey: 'string', deletedAt: 'date' });
        return (manager) => this.billingKeyDeleted(manager, data.billingKey, new Date(data.deletedAt));
      }
    }
  }

  private async settle(
    manager: EntityManager,
    orderId: string,
    outcome: DecidedCharge,
  ): Promise<ProviderEventOutcome> {
    const settlement = await this.payments.settle(orderId, outcome, manager);
    return describe(orderId, settlement);
  }

  /** A payment canceled at the provider: refunds are a later phase, so an operator decides. */
  private async canceled(manager: EntityManager, orderId: string, at: Date): Promise<ProviderEventOutcome> {
    const row = await this.attempts.lockByOrderId(manager, orderId);
    const marked = row?.status === 'succeeded' && !row.provider_canceled_at;
    const attempt = marked ? await this.attempts.markCanceledAtProvider(manager, row.id, at) : row;
    if (!attempt) return { outcome: 'ignored', detail: `order ${orderId} is not one of ours` };
    if (attempt.status === 'pending') {
      return this.settle(manager, orderId, {
        kind: 'rejected',
        status: 400,
        code: 'PAYMENT_CANCELED',
        message: 'The provider canceled the payment.',
      });
    }
    if (marked) {
      this.logger.error(
        {
          alert: 'payment_canceled_at_provider',
          order_id: orderId,
          subscription_id: attempt.subscription_id,
        },
        'a paid charge was canceled at the provider; the subscription is left as it is for an operator',
      );
      return { outcome: 'applied', detail: 'recorded as canceled at the provider' };
    }
    return { outcome: 'already_applied', detail: `order ${orderId} is ${attempt.status}` };
  }
}

function describe(orderId: string, settlement: Settlement | null): ProviderEventOutcome {
  if (!settlement) return { outcome: 'ignored', detail: `order ${orderId} is not one of ours` };
  return settlement.applied
    ? {
        outcome: 'applied',
        detail: `payment ${settlement.attempt.status}, subscription ${settlement.subscription.status}`,
      }
    : { outcome: 'already_applied', detail: `payment already ${settlement.attempt.status}` };
}

type FieldKind = 'string' | 'date' | 'object';

/** The fields an event needs, checked; a malformed event is refused, never half-applied. */
function read<K extends string>(
  event: RoutedProviderEventDto,
  type: string,
  fields: Record<K, FieldKind>,
): Record<K, string> & Record<string, unknown> {
  const errors = (Object.entries(fields) as [K, FieldKind][]).flatMap(([field, kind]) => {
    const value = event.data[field];
    const ok =
      kind === 'object'
        ? typeof value === 'object' && value !== null
        : typeof value === 'string' &&
          value.length > 0 &&
          (kind !== 'date' || !Number.isNaN(Date.parse(value)));
    return ok
      ? []
      : [
          {
            field: `data.${field}`,
            message: `data.${field} must be ${kind === 'date' ? 'an ISO 8601 time' : `a non-empty ${kind}`}`,
          },
        ];
  });
  if (errors.length > 0) {
    throw new ValidationError(
      `${type} event ${event.event_id} is malformed: ${errors.map((e) => e.message).join('; ')}`,
      errors,
    );
  }
  return event.data as Record<K, string> & Record<string, unknown>;
}
