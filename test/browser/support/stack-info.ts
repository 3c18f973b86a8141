/** What a stack process prints once it is up (one JSON line), for the browser suite. */
export interface StackInfo {
  /** `standalone` (npm start's assembly) or `distributed` (one process per app, real infrastructure). */
  kind: 'standalone' | 'distributed';
  /** The public origin: the gateway with the dashboard. */
  url: string;
  /** The test's control server over the fakes (control-server.ts). */
  controlUrl: string;
}

/** What the control server says about the sandbox: ids the tests need. */
export interface SandboxState {
  platformUrl: string;
  demo: {
    guildId: string;
    name: string;
    ownerId: string;
    raiderToken: string;
    /** Platform user ids by username (alice, bob, carol, dave, erin). */
    members: Record<string, string>;
  };
  /** A guild the demo owner manages where the bot is not a member. */
  botlessGuild: { guildId: string; name: string } | null;
}

export const STACK_LINE_PREFIX = 'BROWSER_STACK ';
