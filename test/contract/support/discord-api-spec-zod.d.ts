/**
 * `discord-api-spec/zod` ships as JavaScript only: Zod (mini) schemas generated from Discord's
 * OpenAPI document, one export per component schema (`UserResponseSchema`, ...).
 */
declare module 'discord-api-spec/zod' {
  import type { ZodMiniType } from 'zod/mini';

  const schemas: { readonly [name: string]: ZodMiniType | undefined };
  export = schemas;
}
