import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { Loading, ProblemMessage } from '../app/layout';
import { Link, navigate, useLocation } from '../app/router';
import { pathTo } from '../app/routes';
import {
  confirmCheckout,
  type PlanCode,
  usePlans,
  usePrepare,
  useRefreshBilling,
  useSubscription,
} from '../api/billing-queries';
import { CHECKOUT_REFUSALS, PROBLEM_CODES } from '../api/api.errors';
import { ApiProblem } from '../api/problem';
import { Fact } from '../components/facts';
import { won } from '../format/money';
import { planName } from '../format/plans';
import { dateTime } from '../format/time';
import { type CardEntryFailure, cardEntryFailure, openCardEntry } from '../payments/card-entry';
import { GuildPage } from './guild';

const PAID: readonly PlanCode[] = ['PRO', 'ENTERPRISE'];

/**
 * Subscribing a guild (docs/behaviour.md §4.4-4.5): prepare (which starts a checkout), then either
 * the payer's card on file or the provider's card form, opened through the provider's JS SDK
 * (payments/card-entry.ts), which sends the browser back here with the checkout's id (`checkout`,
 * ours) and the provider's `authKey` and `customerKey` (or `code` and `message` when the card was
 * not registered). Nothing is confirmed on arrival: the page says what will happen and the payer
 * clicks; confirm takes only the checkout this user started, once. A 202 ("processing") is
 * followed here until the provider's webhook settles the first payment.
 */
export function CheckoutPage({ guildId }: { guildId: string }) {
  const { search } = useLocation();
  const requested = search.get('plan') as PlanCode | null;
  const plan = requested && PAID.includes(requested) ? requested : null;
  const processing = search.get('processing');
  const authKey = search.get('authKey');
  const customerKey = search.get('customerKey');
  const checkoutId = search.get('checkout');
  const failedCode = search.get('code');

  return (
    <GuildPage guildId={guildId} title="Checkout">
      {!plan ? (
        <p>
          Choose a paid plan first. <Link href={pathTo('plans', { guildId })}>See the plans</Link>
        </p>
      ) : processing ? (
        <Processing guildId={guildId} subscriptionId={processing} />
      ) : authKey && customerKey ? (
        <CardReturned
          guildId={guildId}
          plan={plan}
          checkoutId={checkoutId}
          authKey={authKey}
          customerKey={customerKey}
        />
      ) : (
        <Checkout
          guildId={guildId}
          plan={plan}
          cardFailure={failedCode ? { code: failedCode, message: search.get('message') ?? '' } : null}
        />
      )}
    </GuildPage>
  );
}

type Outcome = { kind: 'idle' } | { kind: 'busy' } | { kind: 'failed'; error: unknown };

/** Confirms and goes on: to the subscription when paid, to the processing state on a 202. */
function useConfirm(guildId: string, plan: PlanCode) {
  const refresh = useRefreshBilling(guildId);
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'idle' });
  const confirm = async (body: { checkout_id: string; auth_key?: string; customer_key: string }) => {
    setOutcome({ kind: 'busy' });
    try {
      const answer = await confirmCheckout({ ...body, guild_id: guildId, plan_code: plan });
      await refresh();
      if (answer.processing) {
        navigate(pathTo('checkout', { guildId }, { plan, processing: answer.subscription.id }), {
          replace: true,
        });
      } else {
        navigate(pathTo('subscription', { guildId }, { welcome: '1' }), { replace: true });
      }
    } catch (error) {
      setOutcome({ kind: 'failed', error });
    }
  };
  return { outcome, confirm };
}

function Checkout({
  guildId,
  plan,
  cardFailure,
}: {
  guildId: string;
  plan: PlanCode;
  cardFailure: CardEntryFailure | null;
}) {
  const plans = usePlans();
  const prepared = usePrepare(guildId, plan, true);
  const { outcome, confirm } = useConfirm(guildId, plan);
  const [card, setCard] = useState<CardPick>('saved');
  /** The SDK is loading or taking the browser to the card form; or why it could not. */
  const [entry, setEntry] = useState<
    { kind: 'idle' | 'opening' } | { kind: 'failed'; failure: CardEntryFailure }
  >({ kind: 'idle' });
  useEffect(() => {
    // Back from the card form to a page the browser kept in memory: the button works again.
    const shown = (event: PageTransitionEvent) => event.persisted && setEntry({ kind: 'idle' });
    window.addEventListener('pageshow', shown);
    return () => window.removeEventListener('pageshow', shown);
  }, []);
  const name = planName(plans.data?.items, plan);

  if (prepared.isPending) return <Loading what="the checkout" />;
  if (prepared.isError) {
    const exists =
      prepared.error instanceof ApiProblem && prepared.error.code === PROBLEM_CODES.subscriptionExists;
    return (
      <ProblemMessage error={prepared.error}>
        {exists && (
          <p>
            <Link href={pathTo('subscription', { guildId })}>See the subscription</Link>
          </p>
        )}
      </ProblemMessage>
    );
  }
  const ready = prepared.data;
  const saved = ready.saved_card?.status === 'active' ? ready.saved_card : null;
  const useSaved = saved !== null && card === 'saved';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (useSaved) {
      void confirm({ checkout_id: ready.checkout_id, customer_key: ready.customer_key });
      return;
    }
    // The provider's card form, which comes back here (docs/behaviour.md §4.4: customer_key and the
    // client key) with this checkout's id, to which it appends its own answer.
    const back = (query: Record<string, string>) =>
      `${window.location.origin}${pathTo('checkout', { guildId }, { plan, ...query })}`;
    setEntry({ kind: 'opening' });
    openCardEntry({
      sdkUrl: ready.provider_sdk_url,
      clientKey: ready.provider_client_key,
      customerKey: ready.customer_key,
      successUrl: back({ checkout: ready.checkout_id }),
      failUrl: back({ failed: '1' }),
    }).catch((error: unknown) => setEntry({ kind: 'failed', failure: cardEntryFailure(error) }));
  };
  const failure = entry.kind === 'failed' ? entry.failure : cardFailure;

  return (
    <form className="card narrow" onSubmit={submit} aria-labelledby="checkout-heading">
      <h2 id="checkout-heading">Subscribe to {name}</h2>
      <p>
        <strong>{won(ready.amount)}</strong> today, then {won(ready.amount)} every month until you cancel.
        <br />
        <span className="muted small">On the card statement: {ready.order_name}</span>
      </p>
      {failure && (
        <div className="problem" role="alert">
          <p className="problem-title">The card was not registered</p>
          <p>{failure.message || `The card form answered ${failure.code}.`}</p>
          <p>Nothing was charged. Try again, or use another card.</p>
        </div>
      )}
      {outcome.kind === 'failed' && <PaymentProblem error={outcome.error} guildId={guildId} />}
      {saved ? (
        <fieldset>
          <legend>Card</legend>
          <CardChoice value="saved" card={card} onPick={setCard}>
            Use the card ending {saved.card_last4} ({saved.card_company})
          </CardChoice>
          <CardChoice value="new" card={card} onPick={setCard}>
            Enter a new card (it replaces your card for all your subscriptions)
          </CardChoice>
        </fieldset>
      ) : (
        <p>You will enter your card on the payment provider’s page, then come back here.</p>
      )}
      <p className="actions">
        <button
          className="button button-primary"
          type="submit"
          disabled={outcome.kind === 'busy' || entry.kind === 'opening'}
        >
          {useSaved ? `Pay ${won(ready.amount)} and subscribe` : 'Continue to card entry'}
        </button>
        <BackToPlans guildId={guildId} />
      </p>
      {outcome.kind === 'busy' && <Loading what="the payment" />}
      {entry.kind === 'opening' && <Loading what="the payment provider’s card form" />}
    </form>
  );
}

/**
 * Back from the card page with a card the provider registered: nothing happens until the payer,
 * told what will, clicks "Confirm and pay". An address without the checkout's id did not come from
 * a checkout started here (a link someone made): it is refused without a button.
 */
function CardReturned({
  guildId,
  plan,
  checkoutId,
  authKey,
  customerKey,
}: {
  guildId: string;
  plan: PlanCode;
  checkoutId: string | null;
  authKey: string;
  customerKey: string;
}) {
  const plans = usePlans();
  const prepared = usePrepare(guildId, plan, checkoutId !== null);
  const { outcome, confirm } = useConfirm(guildId, plan);
  const again = (
    <p className="actions">
      <Link className="button button-primary" href={pathTo('checkout', { guildId }, { plan })}>
        Start the checkout again
      </Link>
      <BackToPlans guildId={guildId} />
    </p>
  );

  if (!checkoutId) {
    return (
      <div className="narrow">
        <div className="problem" role="alert">
          <p className="problem-title">This payment link was not started here</p>
          <p>
            It does not come from a checkout you started on this dashboard, so nothing was paid with it.
            Nothing was charged and your card on file was not changed.
          </p>
        </div>
        {again}
      </div>
    );
  }
  if (prepared.isPending) return <Loading what="the checkout" />;
  if (prepared.isError) return <ProblemMessage error={prepared.error}>{again}</ProblemMessage>;
  const ready = prepared.data;
  const saved = ready.saved_card?.status === 'active' ? ready.saved_card : null;
  const others = ready.payer_subscriptions;
  const name = planName(plans.data?.items, plan);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void confirm({ checkout_id: checkoutId, auth_key: authKey, customer_key: customerKey });
  };

  return (
    <form className="card narrow" onSubmit={submit} aria-labelledby="confirm-heading">
      <h2 id="confirm-heading">
        Confirm: {name} for {ready.guild_name}
      </h2>
      {outcome.kind === 'failed' && (
        <>
          <PaymentProblem error={outcome.error} guildId={guildId}>
            {isCheckoutRefusal(outcome.error) && (
              <p>
                This payment was not confirmed: nothing was charged and your card on file was not changed.
              </p>
            )}
          </PaymentProblem>
          {again}
        </>
      )}
      <dl className="facts">
        <Fact label="Guild">{ready.guild_name}</Fact>
        <Fact label="Plan">{name}</Fact>
        <Fact label="Amount">
          {won(ready.amount)} today, then {won(ready.amount)} every month until you cancel
        </Fact>
        <Fact label="Card">The card you just registered with the payment provider</Fact>
      </dl>
      <p data-testid="card-replacement">
        {saved
          ? `It replaces your card ending ${saved.card_last4} (${saved.card_company}) as your card on file` +
            (others > 0
              ? `, for your ${others} other ${others === 1 ? 'subscription' : 'subscriptions'} too.`
              : '.')
          : 'It becomes your card on file.'}
      </p>
      {outcome.kind !== 'failed' && (
        <p className="actions">
          <button className="button button-primary" type="submit" disabled={outcome.kind === 'busy'}>
            Confirm and pay
          </button>
          <BackToPlans guildId={guildId} />
        </p>
      )}
      {outcome.kind === 'busy' && <Loading what="the payment" />}
    </form>
  );
}

/** The way out of the checkout, beside its main action. */
function BackToPlans({ guildId }: { guildId: string }) {
  return (
    <Link className="button" href={pathTo('plans', { guildId })}>
      Back to the plans
    </Link>
  );
}

/** Billing refused the checkout itself (not the card's, not the payment's). */
const isCheckoutRefusal = (error: unknown) =>
  error instanceof ApiProblem && CHECKOUT_REFUSALS.includes(error.code ?? '');

/**
 * A refused payment in plain words: the problem's title and detail, and the card company's own
 * reason when the provider gave one. The plan stays as it was.
 */
function PaymentProblem({
  error,
  guildId,
  children,
}: {
  error: unknown;
  guildId: string;
  children?: ReactNode;
}) {
  const reason =
    error instanceof ApiProblem && typeof error.extra.provider_message === 'string'
      ? error.extra.provider_message
      : null;
  return (
    <ProblemMessage error={error}>
      {reason && <p>The payment provider said: {reason}</p>}
      {children}
      <p>
        Nothing changed: the guild keeps its plan.{' '}
        <Link href={pathTo('plans', { guildId })}>See the plans</Link>
      </p>
    </ProblemMessage>
  );
}

/** The first payment is with the provider: read again until its webhook settles it. */
function Processing({ guildId, subscriptionId }: { guildId: string; subscriptionId: string }) {
  const subscription = useSubscription(subscriptionId);
  const refresh = useRefreshBilling(guildId);
  const status = subscription.data?.status;
  const refreshed = useRef(false);
  useEffect(() => {
    // Settled: the plan, the licence and AntiNuke are read afresh, once.
    if (!status || status === 'pending' || refreshed.current) return;
    refreshed.current = true;
    void refresh();
  }, [status, refresh]);

  if (subscription.isError) return <ProblemMessage error={subscription.error} />;
  if (!subscription.data || status === 'pending') {
    return (
      <div className="notice notice-active narrow" role="status" data-testid="payment-processing">
        <h2>Payment is processing</h2>
        <p>
          The payment provider has not confirmed the first payment yet. This page updates by itself as soon as
          it does; you can also leave and come back later.
        </p>
      </div>
    );
  }
  if (status === 'active' || status === 'past_due') {
    return (
      <div className="narrow" role="status">
        <p className="success">Payment confirmed: the subscription is active.</p>
        <p>
          {subscription.data.current_period_end &&
            `Paid until ${dateTime(subscription.data.current_period_end)}. `}
          <Link href={pathTo('subscription', { guildId })}>See the subscription</Link>
        </p>
      </div>
    );
  }
  return (
    <div className="problem narrow" role="alert">
      <p className="problem-title">Payment failed</p>
      <p>The provider declined the first payment. Nothing was charged and the guild keeps its plan.</p>
      <p>
        <Link href={pathTo('plans', { guildId })}>See the plans</Link>
      </p>
    </div>
  );
}

type CardPick = 'saved' | 'new';

/** One of the two card choices, a radio button with its label. */
function CardChoice({
  value,
  card,
  onPick,
  children,
}: {
  value: CardPick;
  card: CardPick;
  onPick: (value: CardPick) => void;
  children: ReactNode;
}) {
  return (
    <label className="checkbox">
      <input type="radio" name="card" value={value} checked={card === value} onChange={() => onPick(value)} />{' '}
      {children}
    </label>
  );
}
