import { detectModes, INTERNAL_SERVICES, planStandalone, PUBLIC_SERVICES } from './modes';
import { SERVICE_NAMES } from '@lib/contracts';

const where = { port: 3000, host: '127.0.0.1', callerFakes: false };

describe(planStandalone.name, () => {
  it('embeds every part when nothing is configured, the sandbox faking both outside ones', () => {
    expect(planStandalone({}, where)).toEqual({
      modes: {
        database: 'embedded',
        events: 'in-process',
        workflows: 'in-process',
        keyValue: 'postgres',
        chatPlatform: 'sandbox',
        paymentProvider: 'sandbox',
      },
      sandbox: { platform: true, provider: true },
      publicPort: 3000,
      host: '127.0.0.1',
    });
  });

  it('switches each part to the real one its variable names', () => {
    const modes = detectModes(
      {
        DATABASE_URL: 'postgres://db/x',
        KAFKA_BROKERS: 'kafka:9092',
        TEMPORAL_ADDRESS: 'temporal:7233',
        REDIS_URL: 'redis://redis',
        DISCORD_BOT_TOKEN: 'token',
        PROVIDER_SECRET_KEY: 'sk',
      },
      where,
    );
    expect(modes).toEqual({
      database: 'external',
      events: 'kafka',
      workflows: 'temporal',
      keyValue: 'redis',
      chatPlatform: 'real',
      paymentProvider: 'real',
    });
  });

  it('reads an empty variable as unset', () => {
    expect(detectModes({ DATABASE_URL: '', KAFKA_BROKERS: '' }, where)).toMatchObject({
      database: 'embedded',
      events: 'in-process',
    });
  });

  it('runs the sandbox for the one outside part that is not configured', () => {
    expect(planStandalone({ PROVIDER_SECRET_KEY: 'sk' }, where).sandbox).toEqual({
      platform: true,
      provider: false,
    });
    expect(planStandalone({ DISCORD_BOT_TOKEN: 't' }, where).sandbox).toEqual({
      platform: false,
      provider: true,
    });
    expect(
      planStandalone({ DISCORD_BOT_TOKEN: 't', PROVIDER_SECRET_KEY: 'sk' }, where).sandbox,
    ).toBeUndefined();
  });

  it("runs no sandbox with a caller's fakes, which stand in for the real parts too", () => {
    const plan = planStandalone(
      { DISCORD_BOT_TOKEN: 't', PROVIDER_SECRET_KEY: 'sk' },
      { ...where, callerFakes: true },
    );
    expect(plan.sandbox).toBeUndefined();
    expect(plan.modes).toMatchObject({ chatPlatform: 'sandbox', paymentProvider: 'sandbox' });
  });

  it('starts every service once: four on loopback ports, two on the public port', () => {
    expect([...INTERNAL_SERVICES, ...PUBLIC_SERVICES].sort()).toEqual([...SERVICE_NAMES].sort());
  });
});
