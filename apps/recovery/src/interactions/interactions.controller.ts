import { Body, Controller, Headers, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { RawBodyRequest } from '@nestjs/common';
import { PublicRoute } from '@lib/identity';
import { CommonErrors } from '@lib/problem-details';
import type { APIInteractionResponse } from 'discord-api-types/v10';
import type { Request, Response } from 'express';
import { InteractionVerifier } from './interaction-signature';
import { type IncomingInteraction, InteractionsService } from './interactions.service';

/**
 * The platform's HTTP interactions endpoint (docs/decisions/slash-commands.md). It carries no
 * internal identity: the Ed25519 signature over the raw body is the authentication.
 */
@Controller('interactions')
export class InteractionsController {
  constructor(
    private readonly verifier: InteractionVerifier,
    private readonly interactions: InteractionsService,
  ) {}

  @Post()
  @PublicRoute()
  @HttpCode(200)
  handle(
    @Req() request: RawBodyRequest<Request>,
    @Res({ passthrough: true }) response: Response,
    @Headers('x-signature-ed25519') signature: string | undefined,
    @Headers('x-signature-timestamp') timestamp: string | undefined,
    @Body() body: IncomingInteraction,
  ): APIInteractionResponse {
    if (!this.verifier.verify(signature, timestamp, request.rawBody)) {
      throw CommonErrors.unauthenticated('The interaction signature is missing or invalid.');
    }
    const answer = this.interactions.handle(body);
    // The command's work starts only once its first answer has gone out: the platform holds that
    // answer to 3 seconds, and a connection that failed first leaves nothing to report to.
    const { afterResponse } = answer;
    if (afterResponse) response.once('finish', afterResponse);
    return answer.response;
  }
}
