import { type DynamicModule, Module } from '@nestjs/common';
import { ChatPlatformClient, type ChatPlatformClientOptions } from '@lib/chat-platform';

/** The bot's REST client for the chat platform, one per process (it owns the rate-limit queues). */
@Module({})
export class PlatformModule {
  static forRoot(options: ChatPlatformClientOptions): DynamicModule {
    return {
      module: PlatformModule,
      global: true,
      providers: [{ provide: ChatPlatformClient, useValue: new ChatPlatformClient(options) }],
      exports: [ChatPlatformClient],
    };
  }
}
