import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigError } from '@lib/config';
import type { ServiceName } from '@lib/contracts';
import {
  createServiceApp,
  keepIdleConnections,
  requestListenerOf,
  runAsService,
  type ServiceDefinition,
  startServiceApp,
} from '@lib/runtime';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { billingService } from '../apps/billing/src/service';
import { gatewayService } from '../apps/gateway/src/service';
import { licensingService } from '../apps/licensing/src/service';
import { notifierService } from '../apps/notifier/src/service';
import { recoveryService } from '../apps/recovery/src/service';
import { webhookIntakeService } from '../apps/webhook-intake/src/service';
import { INTERNAL_SERVICES, type InternalService, PUBLIC_SERVICES } from './modes';

/** A service's environment was refused; every problem is listed, by service. */
export class StandaloneConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'StandaloneConfigError';
  }
}

/** A service whose environment was accepted: it makes its Nest application, as itself. */
interface ConfiguredService {
  name: ServiceName;
  create(): Promise<NestExpressApplication>;
}

function configure<T>(
  definition: ServiceDefinition<T>,
  env: NodeJS.ProcessEnv,
  problems: string[],
): ConfiguredService | undefined {
  try {
    const config = definition.loadConfig(env);
    return {
      name: definition.name as ServiceName,
      create: () => runAsService(definition.name, () => createServiceApp(definition, config)),
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems.map((problem) => `${definition.name}: ${problem}`));
    return undefined;
  }
}

/**
 * Every service's environment is checked before anything starts, and every problem is reported
 * at once (StandaloneConfigError).
 */
export function configureServices(
  environments: Record<ServiceName, NodeJS.ProcessEnv>,
): Record<ServiceName, ConfiguredService> {
  const problems: string[] = [];
  const configured = {
    licensing: configure(licensingService, environments.licensing, problems),
    recovery: configure(recoveryService, environments.recovery, problems),
    billing: configure(billingService, environments.billing, problems),
    notifier: configure(notifierService, environments.notifier, problems),
    'webhook-intake': configure(webhookIntakeService, environments['webhook-intake'], problems),
    gateway: configure(gatewayService, environments.gateway, problems),
  };
  if (problems.length > 0) throw new StandaloneConfigError(problems);
  return configured as Record<ServiceName, ConfiguredService>;
}

/** The request listeners of the services mounted on the public port. */
export interface PublicListeners {
  intake: (req: IncomingMessage, res: ServerResponse) => void;
  gateway: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * Starts every service as itself (runAsService: what it starts keeps its name in the logs): the
 * internal ones listening on their loopback ports, then the public ones mounted, not listening.
 * Each app goes into `apps` as soon as it exists; the caller closes them, the last first, at stop
 * and after a failed start.
 */
export async function startServices(
  services: Record<ServiceName, ConfiguredService>,
  ports: Record<InternalService, number>,
  apps: INestApplication[],
): Promise<PublicListeners> {
  for (const service of INTERNAL_SERVICES) {
    const app = await services[service].create();
    apps.push(app);
    await runAsService(service, async () => {
      await startServiceApp(app);
      await app.listen(ports[service], '127.0.0.1');
    });
    keepIdleConnections(app.getHttpServer());
  }
  const listeners = {} as Record<(typeof PUBLIC_SERVICES)[number], PublicListeners['gateway']>;
  for (const service of PUBLIC_SERVICES) {
    const app = await services[service].create();
    apps.push(app);
    await runAsService(service, () => startServiceApp(app));
    // Nest prints what it logged while starting (and stops holding log lines back) once an app
    // listens; one mounted on the public port never does, and every later line of every service
    // would be held in memory and never printed.
    app.flushLogs();
    listeners[service] = requestListenerOf(app);
  }
  return { intake: listeners['webhook-intake'], gateway: listeners.gateway };
}
