import { Module } from '@nestjs/common';
import { DocsController } from './docs.controller';

/** `GET /docs` (Swagger UI) and `GET /docs/openapi.json`, without a session. */
@Module({ controllers: [DocsController] })
export class DocsModule {}
