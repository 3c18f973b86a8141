/**
 * The bot tokens the platform accepts and whose account each one is: the fake's own bot, and any
 * other bot a test registers (a raider's, say), whose requests and gateway sessions are then that
 * user's, with that user's permissions in each guild.
 */
export class BotAccounts {
  private readonly registered = new Map<string, string>();

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
    return token === this.botToken ? this.botUserId : this.registered.get(token);
  }

  /** Forgets every registered token; the fake's own stays. */
  clear(): void {
    this.registered.clear();
  }
}
