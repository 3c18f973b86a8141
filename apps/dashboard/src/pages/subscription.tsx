import type { ReactNode } from 'react';
import { ProblemMessage, QueryStatus } from '../app/layout';
import { Link, useLocation } from '../app/router';
import { pathTo } from '../app/routes';
import type { Schemas } from '../api/client';
import {
  type PaidPlanCode,
  type Subscription,
  useChangeSubscription,
  useLiveSubscription,
  usePayments,
  usePlans,
  useSubscription,
} from '../api/billing-queries';
import { type KnownNames, useMe, useMemberNames } from '../api/queries';
import { platformUserLabel } from '../format/audit-entry';
import { won } from '../format/money';
import { paymentFor, planName, upgradeOutcome } from '../format/plans';
import { dateTime } from '../format/time';
import { Fact } from '../components/facts';
import { ListTable } from '../components/list-table';
import { GuildPage } from './guild';

type Plans = Schemas['PlanDefinition'][] | undefined;

/**
 * The guild's subscription: plan, status, next charge, card, payment history; for its payer, the
 * changes (upgrade once its prorated difference is paid, downgrade and cancel at period end, and
 * their undos). Another
 * administrator sees the same facts and who pays, without the controls.
 */
export function SubscriptionPage({ guildId }: { guildId: string }) {
  const live = useLiveSubscription(guildId);
  const id = live.data?.id ?? null;
  const subscription = useSubscription(id);
  const plans = usePlans();
  const me = useMe();
  const { search } = useLocation();
  const payer = subscription.data?.payer_platform_user_id;
  const paidByAnother = Boolean(
    me.data && subscription.data && subscription.data.payer_user_id !== me.data.id,
  );
  // The payer's name in this guild, for another administrator; "user <id>" until it arrives.
  const names = useMemberNames(guildId, {
    userIds: [],
    platformUserIds: paidByAnother && payer ? [payer] : [],
  });

  return (
    <GuildPage guildId={guildId} title="Subscription">
      <QueryStatus query={live} what="the subscription" />
      {live.data === null && (
        <p>
          This guild is on the Free plan and has no subscription.{' '}
          <Link href={pathTo('plans', { guildId })}>Compare the plans</Link>
        </p>
      )}
      {subscription.isError && <ProblemMessage error={subscription.error} />}
      {subscription.data && (
        <>
          {search.get('welcome') && subscription.data.status === 'active' && (
            <p className="notice success" role="status">
              Payment confirmed: {planName(plans.data?.items, subscription.data.plan)} is active.
            </p>
          )}
          <Facts
            subscription={subscription.data}
            plans={plans.data?.items}
            myId={me.data?.id}
            names={names}
          />
          {me.data && subscription.data.payer_user_id === me.data.id ? (
            <PayerControls guildId={guildId} subscription={subscription.data} plans={plans.data?.items} />
          ) : (
            <p className="notice" data-testid="not-payer">
              Only the administrator who pays (
              {(payer && names.platformUsers.get(payer)) ?? `user ${payer ?? 'unknown'}`}) can change or
              cancel this subscription.
            </p>
          )}
          <PaymentHistory subscriptionId={subscription.data.id} plans={plans.data?.items} />
        </>
      )}
    </GuildPage>
  );
}

function When({ iso }: { iso: string }) {
  return <time dateTime={iso}>{dateTime(iso)}</time>;
}

function statusText(subscription: Subscription): ReactNode {
  switch (subscription.status) {
    case 'pending':
      return 'Payment is processing';
    case 'active':
      return subscription.cancel_at_period_end && subscription.current_period_end ? (
        <>
          Canceled: ends on <When iso={subscription.current_period_end} />
        </>
      ) : (
        'Active'
      );
    case 'past_due':
      return subscription.next_billing_at ? (
        <>
          Payment failed: next try on <When iso={subscription.next_billing_at} />
        </>
      ) : (
        'Payment failed'
      );
    case 'canceled':
      return 'Ended';
  }
}

function Facts({
  subscription,
  plans,
  myId,
  names,
}: {
  subscription: Subscription;
  plans: Plans;
  myId?: string;
  names: KnownNames;
}) {
  const next = subscription.next_charge;
  return (
    <dl className="facts" data-testid="subscription-facts">
      <Fact label="Plan">{planName(plans, subscription.plan)}</Fact>
      <Fact label="Status">{statusText(subscription)}</Fact>
      {subscription.pending_downgrade_to && subscription.current_period_end && (
        <Fact label="Scheduled change">
          {planName(plans, subscription.pending_downgrade_to)} from{' '}
          <When iso={subscription.current_period_end} />
        </Fact>
      )}
      {subscription.current_period_start && subscription.current_period_end && (
        <Fact label="Current period">
          <When iso={subscription.current_period_start} /> to <When iso={subscription.current_period_end} />
        </Fact>
      )}
      <Fact label="Next charge">
        {next ? (
          <>
            {won(next.amount_krw)} on <When iso={next.at} />
            {next.plan !== subscription.plan && ` (${planName(plans, next.plan)})`}
          </>
        ) : (
          'None'
        )}
      </Fact>
      <Fact label="Card">
        {subscription.card.card_company} card ending {subscription.card.card_last4}
        {subscription.card.status === 'deleted' && ' (removed: register a card again)'}
      </Fact>
      <Fact label="Paid by">
        {subscription.payer_user_id === myId
          ? 'You'
          : names.platformUsers.get(subscription.payer_platform_user_id ?? '')
            ? platformUserLabel(subscription.payer_platform_user_id, names.platformUsers)
            : `Another administrator (user ${subscription.payer_platform_user_id ?? 'unknown'})`}
      </Fact>
    </dl>
  );
}

/** The payer's changes, each explained before the click. */
function PayerControls({
  guildId,
  subscription,
  plans,
}: {
  guildId: string;
  subscription: Subscription;
  plans: Plans;
}) {
  const change = useChangeSubscription(guildId, subscription.id);
  const periodEnd = subscription.current_period_end;
  const busy = change.isPending;
  const current = plans?.find((plan) => plan.code === subscription.plan);
  const others = (plans ?? []).filter(
    (plan): plan is Schemas['PlanDefinition'] & { code: PaidPlanCode } =>
      plan.price_krw > 0 && plan.code !== subscription.plan,
  );

  return (
    <section className="card" aria-labelledby="change-heading">
      <h2 id="change-heading">Change plan</h2>
      {change.isError && <ProblemMessage error={change.error} />}
      {change.data && (
        <p className={change.data.status === 'succeeded' ? 'notice success' : 'notice'} role="status">
          {upgradeOutcome(plans, change.data)}
        </p>
      )}
      {subscription.status !== 'active' ? (
        <p>
          {subscription.status === 'past_due'
            ? 'The last payment failed: the plan can be changed again once a payment goes through.'
            : 'The plan can be changed once the subscription is active.'}
        </p>
      ) : (
        <>
          {subscription.pending_downgrade_to && periodEnd && (
            <ChangeOption
              action={`Keep ${current?.name ?? subscription.plan}`}
              busy={busy}
              onChoose={() => change.mutate({ kind: 'drop-downgrade' })}
            >
              {planName(plans, subscription.pending_downgrade_to)} takes over on <When iso={periodEnd} />.
              Keep {current?.name ?? subscription.plan} instead, and it renews as it is.
            </ChangeOption>
          )}
          {!subscription.cancel_at_period_end &&
            others.map((plan) =>
              current && plan.rank > current.rank ? (
                <UpgradeOption
                  key={plan.code}
                  plan={plan}
                  subscription={subscription}
                  busy={busy}
                  onChoose={() => change.mutate({ kind: 'change-plan', plan: plan.code })}
                />
              ) : plan.code !== subscription.pending_downgrade_to && periodEnd ? (
                <ChangeOption
                  key={plan.code}
                  action={`Downgrade to ${plan.name}`}
                  busy={busy}
                  onChoose={() => change.mutate({ kind: 'change-plan', plan: plan.code })}
                >
                  Downgrade to {plan.name}: you keep {current?.name ?? subscription.plan} until{' '}
                  <When iso={periodEnd} />, then pay {won(plan.price_krw)} a month. You can undo it until
                  then.
                </ChangeOption>
              ) : null,
            )}
          {periodEnd &&
            (subscription.cancel_at_period_end ? (
              <ChangeOption
                action="Keep the subscription"
                tone="primary"
                busy={busy}
                onChoose={() => change.mutate({ kind: 'uncancel' })}
              >
                The subscription ends on <When iso={periodEnd} /> and the guild returns to the Free plan. Keep
                it, and it renews as before.
              </ChangeOption>
            ) : (
              <ChangeOption
                action="Cancel at period end"
                tone="danger"
                busy={busy}
                onChoose={() => change.mutate({ kind: 'cancel' })}
              >
                Cancel: nothing more is charged; the guild keeps {current?.name ?? subscription.plan} until{' '}
                <When iso={periodEnd} />, then returns to the Free plan. You can undo it until then.
              </ChangeOption>
            ))}
        </>
      )}
    </section>
  );
}

/**
 * An upgrade, with what it charges now (the subscription's `upgrade_options`: the prorated
 * difference for the rest of the period; the charge at the click is at most that). Without a quote
 * a payment is in flight, and the upgrade waits for it.
 */
function UpgradeOption({
  plan,
  subscription,
  busy,
  onChoose,
}: {
  plan: Schemas['PlanDefinition'] & { code: PaidPlanCode };
  subscription: Subscription;
  busy: boolean;
  onChoose: () => void;
}) {
  const quote = subscription.upgrade_options.find((option) => option.plan === plan.code);
  if (!quote) {
    return (
      <p className="notice">
        A payment of this subscription is being processed: you can upgrade to {plan.name} once it is settled.
      </p>
    );
  }
  return (
    <ChangeOption action={`Upgrade to ${plan.name}`} tone="primary" busy={busy} onChoose={onChoose}>
      Upgrade to {plan.name}: {won(quote.amount_krw)} is charged now on your card ending{' '}
      {subscription.card.card_last4}, the difference for the rest of this period, and {plan.name} takes effect
      as soon as it is paid. From the next charge
      {subscription.next_billing_at && (
        <>
          {' '}
          on <When iso={subscription.next_billing_at} />
        </>
      )}{' '}
      you pay {won(plan.price_krw)} a month.
    </ChangeOption>
  );
}

/** One change the payer can make: what it does and when, then the button that makes it. */
function ChangeOption({
  action,
  tone,
  busy,
  onChoose,
  children,
}: {
  action: string;
  tone?: 'primary' | 'danger';
  busy: boolean;
  onChoose: () => void;
  children: ReactNode;
}) {
  return (
    <div className="change-option">
      <p>{children}</p>
      <button
        type="button"
        className={tone ? `button button-${tone}` : 'button'}
        disabled={busy}
        onClick={onChoose}
      >
        {action}
      </button>
    </div>
  );
}

const OUTCOMES: Record<Schemas['PaymentView']['status'], string> = {
  pending: 'Processing',
  succeeded: 'Paid',
  failed: 'Declined',
};

function PaymentHistory({ subscriptionId, plans }: { subscriptionId: string; plans: Plans }) {
  const payments = usePayments(subscriptionId);
  const items = payments.data?.items ?? [];
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">Payment history</h2>
      <QueryStatus query={payments} what="the payments" />
      {payments.data && items.length === 0 && <p>No payment yet.</p>}
      {items.length > 0 && (
        <ListTable
          caption="Payments, newest first"
          columns={['When', 'For', 'Order id', 'Amount', 'Outcome']}
          testId="payment-history"
        >
          {items.map((payment) => (
            <tr key={payment.order_id}>
              <td data-label="When">
                <When iso={payment.approved_at ?? payment.created_at} />
              </td>
              <td data-label="For">{paymentFor(plans, payment)}</td>
              <td data-label="Order id">
                <code>{payment.order_id}</code>
              </td>
              <td data-label="Amount">{won(payment.amount_krw)}</td>
              <td data-label="Outcome">
                {payment.refunded_at ? 'Refunded' : OUTCOMES[payment.status]}
                {payment.failure_message && <span className="muted">: {payment.failure_message}</span>}
                {payment.retry_number > 0 && (
                  <span className="muted small"> (retry {payment.retry_number})</span>
                )}
                {payment.receipt_url && (
                  <>
                    {' '}
                    <a href={payment.receipt_url} target="_blank" rel="noopener noreferrer">
                      Receipt
                    </a>
                  </>
                )}
              </td>
            </tr>
          ))}
        </ListTable>
      )}
    </section>
  );
}
