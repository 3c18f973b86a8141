import type { Schemas } from '../api/client';
import { won } from './money';
import { ALL_SCOPES, SCOPE_LABELS } from './restore-scopes';

type Plan = Schemas['PlanDefinition'];
type Feature = Plan['features'][number];

/** What each feature gives a guild, in the words of the plans page. */
export const FEATURE_NAMES: Record<Feature, string> = {
  RECOVERY_RESTORE: 'Restore from a snapshot',
  RECOVERY_SNAPSHOT_MANUAL: 'Snapshots on demand',
  RECOVERY_SNAPSHOT_SCHEDULED: 'Scheduled daily snapshots',
  RECOVERY_LIVE_SYNC: 'Live sync of every change',
  ANTINUKE_DETECT: 'AntiNuke raid detection',
  ANTINUKE_AUTO_ACTION: 'AntiNuke automatic action',
};

/** The features in the order the plans page compares them. */
export const FEATURE_ORDER: readonly Feature[] = [
  'RECOVERY_SNAPSHOT_MANUAL',
  'RECOVERY_RESTORE',
  'RECOVERY_SNAPSHOT_SCHEDULED',
  'RECOVERY_LIVE_SYNC',
  'ANTINUKE_DETECT',
  'ANTINUKE_AUTO_ACTION',
];

/**
 * "Restores roles, channels, … members’ roles and bans", from the plan's `restore_scopes` as licensing
 * serves them, so a plan that gains or loses a scope reads right without a dashboard change.
 */
export function restores(plan: Plan): string {
  // The restore page's names and order, in the middle of a sentence.
  // AutoMod is a name, and keeps its capitals.
  const names = ALL_SCOPES.filter((scope) => plan.restore_scopes.includes(scope)).map((scope) =>
    SCOPE_LABELS[scope].toLowerCase().replace('automod', 'AutoMod'),
  );
  if (names.length === 0) return 'No restores';
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `Restores ${list}`;
}

/** "Kept 30 days", "No scheduled snapshots". */
export function retention(plan: Plan): string {
  const days = plan.limits.scheduled_snapshot_retention_days;
  return days === null ? 'No scheduled snapshots' : `Scheduled snapshots kept ${days} days`;
}

/** "Audit log kept 90 days": how long the plan keeps a guild's audit log entries. */
export function auditRetention(plan: Pick<Plan, 'limits'>): string {
  return `Audit log kept ${days(plan.limits.audit_log_retention_days)}`;
}

/** The audit log page's note: "Entries are kept 90 days on the Pro plan; older ones are deleted." */
export function auditRetentionNote(retentionDays: number, planName: string): string {
  return `Entries are kept ${days(retentionDays)} on the ${planName} plan; older ones are deleted.`;
}

function days(count: number): string {
  return count === 1 ? '1 day' : `${count} days`;
}

/** "Up to 100 MiB of emoji, sticker and server images": the plan's image quota per guild. */
export function imageQuota(plan: Pick<Plan, 'limits'>): string {
  const bytes = plan.limits.snapshot_image_bytes;
  if (bytes === 0) return 'No emoji, sticker or server images kept';
  const size = bytes >= 1024 ** 3 ? `${bytes / 1024 ** 3} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`;
  return `Up to ${size} of emoji, sticker and server images kept`;
}

export function slots(plan: Plan): string {
  const max = plan.limits.snapshot_manual_max;
  return max === 0 ? 'No manual snapshot slots' : `${max} manual snapshot ${max === 1 ? 'slot' : 'slots'}`;
}

/** The plan's name, from the catalogue when it is loaded. */
export function planName(plans: readonly Plan[] | undefined, code: Plan['code']): string {
  return plans?.find((plan) => plan.code === code)?.name ?? code;
}

type Payment = Pick<Schemas['PaymentView'], 'purpose' | 'plan' | 'cycle'>;

/** What a payment paid for, as the history lists it: "Pro, month 3", "Upgrade to Enterprise (prorated)". */
export function paymentFor(plans: readonly Plan[] | undefined, payment: Payment): string {
  const name = planName(plans, payment.plan);
  return payment.purpose === 'upgrade' ? `Upgrade to ${name} (prorated)` : `${name}, month ${payment.cycle}`;
}

type UpgradePayment = Pick<Schemas['UpgradePaymentView'], 'plan' | 'amount_krw' | 'status'>;

/** The notice after an upgrade: paid and in force, or still being processed (HTTP 202). */
export function upgradeOutcome(plans: readonly Plan[] | undefined, payment: UpgradePayment): string {
  const name = planName(plans, payment.plan);
  return payment.status === 'succeeded'
    ? `Upgraded to ${name}: ${won(payment.amount_krw)} charged for the rest of this period.`
    : `The payment of ${won(payment.amount_krw)} for ${name} is being processed: the plan changes as soon as the payment provider confirms it.`;
}
