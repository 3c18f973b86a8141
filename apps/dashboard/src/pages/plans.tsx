import { Loading, ProblemMessage } from '../app/layout';
import { Link } from '../app/router';
import { pathTo } from '../app/routes';
import { useLiveSubscription, usePlans } from '../api/billing-queries';
import { useLicense } from '../api/queries';
import { won } from '../format/money';
import {
  auditRetention,
  FEATURE_NAMES,
  FEATURE_ORDER,
  imageQuota,
  restores,
  retention,
  slots,
} from '../format/plans';
import { GuildPage } from './guild';

/**
 * FREE, PRO and ENTERPRISE side by side, as licensing serves them: price, snapshot slots and
 * retention, audit log retention, what a restore puts back, features; the plan in force marked. Without a subscription a paid plan leads to the
 * checkout; with one, to the subscription page where the payer changes plan.
 */
export function PlansPage({ guildId }: { guildId: string }) {
  const plans = usePlans();
  const license = useLicense(guildId);
  const live = useLiveSubscription(guildId);
  const current = license.data?.plan.code;
  const subscription = live.data;

  return (
    <GuildPage guildId={guildId} title="Plans">
      {(plans.isPending || license.isPending) && <Loading what="the plans" />}
      {plans.isError && <ProblemMessage error={plans.error} />}
      {license.isError && <ProblemMessage error={license.error} />}
      {subscription && (
        <p className="notice" role="status">
          This guild has a subscription.{' '}
          <Link href={pathTo('subscription', { guildId })}>See the subscription</Link> to change the plan or
          cancel.
        </p>
      )}
      <ul className="plan-grid" aria-label="Plans">
        {plans.data?.items.map((plan) => {
          const isCurrent = plan.code === current;
          const headingId = `plan-${plan.code}`;
          return (
            <li key={plan.code} className={isCurrent ? 'card plan plan-current' : 'card plan'}>
              <section aria-labelledby={headingId}>
                <h2 id={headingId}>
                  {plan.name} {isCurrent && <span className="badge badge-registered">Current plan</span>}
                </h2>
                <p className="plan-price">
                  {plan.price_krw === 0 ? (
                    'Free'
                  ) : (
                    <>
                      {won(plan.price_krw)} <span className="muted small">per month</span>
                    </>
                  )}
                </p>
                <ul className="plan-limits">
                  <li>{slots(plan)}</li>
                  <li>{retention(plan)}</li>
                  <li>{auditRetention(plan)}</li>
                  <li>{imageQuota(plan)}</li>
                  <li>{restores(plan)}</li>
                </ul>
                <ul className="plan-features" aria-label={`${plan.name} features`}>
                  {FEATURE_ORDER.map((feature) => {
                    const included = plan.features.includes(feature);
                    return (
                      <li key={feature} className={included ? 'included' : 'excluded'}>
                        <span aria-hidden="true">{included ? '✓' : '–'}</span> {FEATURE_NAMES[feature]}
                        <span className="visually-hidden">{included ? ': included' : ': not included'}</span>
                      </li>
                    );
                  })}
                </ul>
                {plan.price_krw > 0 && !isCurrent && !subscription && license.data && (
                  <Link
                    className="button button-primary"
                    href={pathTo('checkout', { guildId }, { plan: plan.code })}
                  >
                    Subscribe to {plan.name}
                  </Link>
                )}
              </section>
            </li>
          );
        })}
      </ul>
    </GuildPage>
  );
}
