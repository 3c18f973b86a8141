import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ChatPlatformClient } from '@lib/chat-platform';
import { ProblemDetailsFilter } from '@lib/problem-details';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { GuildAccessService } from '../../../apps/recovery/src/guilds/guild-access.service';
import { GuildRegistry } from '../../../apps/recovery/src/guilds/guild-registry.service';
import { InteractionVerifier } from '../../../apps/recovery/src/interactions/interaction-signature';
import { InteractionsController } from '../../../apps/recovery/src/interactions/interactions.controller';
import { InteractionsService } from '../../../apps/recovery/src/interactions/interactions.service';
import { SnapshotService } from '../../../apps/recovery/src/snapshots/snapshot.service';
import { UserDirectory } from '../../../apps/recovery/src/users/user-directory.repository';

/** The recovery app's interactions endpoint, up on loopback, and the key the platform signs with. */
export interface ProductInteractionsEndpoint {
  /** The endpoint's base address; interactions go to `${url}/interactions`. */
  url: string;
  /** The application's Ed25519 private key; the endpoint verifies with the public half. */
  signingKey: KeyObject;
  close(): Promise<void>;
}

/**
 * The recovery app's own interactions controller and service, with the raw body its signature
 * check needs, answering as the app does, and reporting each command's outcome through `client`.
 * The suite has no database: the guild registry it gets knows no guild, so `/snapshot create`
 * ends in the product's "not registered" outcome, edited into the deferred reply, and the
 * snapshot, access and user services behind it are never reached.
 */
export async function startProductInteractions(
  client: ChatPlatformClient,
): Promise<ProductInteractionsEndpoint> {
  const keys = generateKeyPairSync('ed25519');
  const { x } = keys.publicKey.export({ format: 'jwk' });
  const publicKeyHex = Buffer.from(x!, 'base64url').toString('hex');
  const noGuildRegistered: Pick<GuildRegistry, 'findByPlatformId'> = {
    findByPlatformId: () => Promise.resolve(null),
  };
  const unreached = {};
  const moduleRef = await Test.createTestingModule({
    controllers: [InteractionsController],
    providers: [
      InteractionsService,
      { provide: InteractionVerifier, useValue: new InteractionVerifier(publicKeyHex) },
      { provide: GuildRegistry, useValue: noGuildRegistered },
      { provide: GuildAccessService, useValue: unreached },
      { provide: SnapshotService, useValue: unreached },
      { provide: UserDirectory, useValue: unreached },
      { provide: ChatPlatformClient, useValue: client },
    ],
  }).compile();
  const app: INestApplication = moduleRef.createNestApplication({ rawBody: true, logger: false });
  // As the app answers: a refused signature is a 401 problem.
  app.useGlobalFilters(new ProblemDetailsFilter());
  await app.listen(0, '127.0.0.1');
  return {
    url: (await app.getUrl()).replace('[::1]', '127.0.0.1'),
    signingKey: keys.privateKey,
    close: () => app.close(),
  };
}
