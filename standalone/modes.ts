import type { ServiceName } from '@lib/contracts';

/** Which part runs embedded and which is the real one the environment names. */
export interface StandaloneModes {
  database: 'embedded' | 'external';
  events: 'in-process' | 'kafka';
  workflows: 'in-process' | 'temporal';
  keyValue: 'postgres' | 'redis';
  chatPlatform: 'sandbox' | 'real';
  paymentProvider: 'sandbox' | 'real';
}

/** The services that listen on a loopback port of their own, in the order they start. */
export const INTERNAL_SERVICES = ['licensing', 'recovery', 'billing', 'notifier'] as const;
export type InternalService = (typeof INTERNAL_SERVICES)[number];

/** The services mounted on the one public port, started after the internal ones (in this order). */
export const PUBLIC_SERVICES = ['webhook-intake', 'gateway'] as const satisfies readonly ServiceName[];

/** What standalone mode runs, decided from the environment alone, before anything starts. */
export interface StandalonePlan {
  modes: StandaloneModes;
  /**
   * The parts the sandbox fakes (docs/decisions/standalone-mode.md), or undefined when it runs
   * none: both are real, or the caller (a test) brings fakes of its own.
   */
  sandbox: { platform: boolean; provider: boolean } | undefined;
  /** Where the public port listens: the gateway and the webhook intake answer there. */
  publicPort: number;
  host: string;
}

/**
 * docs/decisions/standalone-mode.md: each of DATABASE_URL, KAFKA_BROKERS, TEMPORAL_ADDRESS,
 * REDIS_URL, DISCORD_BOT_TOKEN and PROVIDER_SECRET_KEY, when set and not empty, switches its part
 * from the embedded one to the real one. A caller's fakes stand in for both outside parts.
 */
export function detectModes(
  env: NodeJS.ProcessEnv,
  { callerFakes }: { callerFakes: boolean },
): StandaloneModes {
  const set = (name: string) => (env[name] ?? '') !== '';
  return {
    database: set('DATABASE_URL') ? 'external' : 'embedded',
    events: set('KAFKA_BROKERS') ? 'kafka' : 'in-process',
    workflows: set('TEMPORAL_ADDRESS') ? 'temporal' : 'in-process',
    keyValue: set('REDIS_URL') ? 'redis' : 'postgres',
    chatPlatform: set('DISCORD_BOT_TOKEN') && !callerFakes ? 'real' : 'sandbox',
    paymentProvider: set('PROVIDER_SECRET_KEY') && !callerFakes ? 'real' : 'sandbox',
  };
}

/** The modes, the sandbox's parts and the public address, from the environment and the caller's choices. */
export function planStandalone(
  env: NodeJS.ProcessEnv,
  where: { port: number; host: string; callerFakes: boolean },
): StandalonePlan {
  const modes = detectModes(env, where);
  const platform = modes.chatPlatform === 'sandbox';
  const provider = modes.paymentProvider === 'sandbox';
  return {
    modes,
    sandbox: !where.callerFakes && (platform || provider) ? { platform, provider } : undefined,
    publicPort: where.port,
    host: where.host,
  };
}
