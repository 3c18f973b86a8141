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
    /** The provider's card page for the dashboard, or null where none is configured. */
    readonly cardWidgetUrl: string | null = null,
  ) {}

  /** docs/behaviour.md §4.4: service name, plan and guild name, as the card statement shows it. */
  orderName(planName: string, guildName: string): string {
    return `${this.serviceDisplayName} ${planName} - ${guildName}`.slice(0, 100);
  }
}
