/**
 * The bot tokens the platform accepts and whose account each one is: the fake's own bot, and any
 * other bot a test registers (a raider's, say), whose requests and gateway sessions are then that
 * user's, with that user's permissions in each guild.
 */
export class BotAccounts {
  private readonly registered = new Map<string, string>();
  /** Accounts whose token the platform has reset: the token they had is refused from then on. */
  private readonly reset = new Set<string>();

  constructor(
    private readonly botToken: string,
    private readonly botUserId: string,
  ) {}

  register(token: string, userId: string): void {
    if (token === this.botToken) throw new Error("that token is the fake's own bot's");
    this.registered.set(token, userId);
  }

  /** The user id of the token's account, if the platform knows the token. */
  userIdFor(token: string): string | undefined {
    const userId = token === this.botToken ? this.botUserId : this.registered.get(token);
    return userId === undefined || this.reset.has(userId) ? undefined : userId;
  }

  /** The platform resets the account's token: REST answers 401 and the gateway 4004 to it. */
  resetToken(userId: string): void {
    this.reset.add(userId);
  }

  /** Whether the account's token has been reset. */
  wasReset(userId: string): boolean {
    return this.reset.has(userId);
  }

  /** Forgets every registered token and every reset; the fake's own token works again. */
  clear(): void {
    this.registered.clear();
    this.reset.clear();
  }
}
