/** The configuration billing's services read at run time, as one injectable value. */
export class BillingSettings {
  constructor(
    /** Public key of the provider's card widget. */
    readonly providerClientKey: string,
    /** First words of every order name. */
    readonly serviceDisplayName: string,
    readonly jobsEnabled: boolean,
    readonly jobsIntervalMs: number,
    readonly reconcileAfterMs: number,
    /** The provider's JS SDK, which the dashboard loads for the card form (docs/billing-in-the-dashboard.md). */
    readonly providerSdkUrl: string,
    /** The longest wait between two look-ups of a pending charge (the back-off's ceiling). */
    readonly checkMaxIntervalMs = 6 * 3_600_000,
    /** A charge still pending this long after it was created raises the operator alert. */
    readonly unsettledAlertAfterMs = 3_600_000,
    /** How long a prepared checkout may be confirmed (CHECKOUT_TTL_MINUTES). */
    readonly checkoutTtlMs: number = 30 * 60_000,
  ) {}

  /** docs/behaviour.md §4.4: service name, plan and guild name, as the card statement shows it. */
  orderName(planName: string, guildName: string): string {
    return `${this.serviceDisplayName} ${planName} - ${guildName}`.slice(0, 100);
  }
}
