import { ApiOperation } from '@nestjs/swagger';
import { Controller, Get, Req, UseGuards } from '@nestjs/common';
import { PublicRoute } from '@lib/identity';
import { CommonErrors, ProblemAnswers } from '@lib/problem-details';
import { GatewayErrors } from '../gateway.errors';
import type { MyGuildsView } from '../guilds/my-guilds.dto';
import { MyGuilds } from '../guilds/my-guilds.service';
import type { MeView } from './me.dto';
import { CurrentSession, SessionGuard, type SessionRequest } from './session.guard';
import type { Session } from './sessions';
import { toUserView } from './user-view';
import { UsersRepository } from './users.repository';

/** Who is logged in, and the guilds they can manage (the gateway answers these itself). */
@Controller('api/v1/me')
@PublicRoute()
@UseGuards(SessionGuard)
export class MeController {
  constructor(
    private readonly users: UsersRepository,
    private readonly myGuilds: MyGuilds,
  ) {}

  @ApiOperation({ summary: 'Who is logged in' })
  @Get()
  async me(@CurrentSession() session: Session): Promise<MeView> {
    const user = await this.users.get(session.user_id);
    if (!user) throw CommonErrors.unauthenticated('This account no longer exists. Log in again.');
    return {
      ...toUserView(user),
      session: { id: session.session_id, created_at: session.created_at, expires_at: session.expires_at },
    };
  }

  /**
   * The guilds the user can manage on the platform (owner, ADMINISTRATOR or MANAGE_GUILD), each
   * `registered`, `bot_present` or `bot_missing`; the platform's list is reused for 30 s.
   */
  @ApiOperation({ summary: 'List my guilds' })
  @ProblemAnswers(GatewayErrors.platformAccessExpired)
  @Get('guilds')
  guilds(@CurrentSession() session: Session, @Req() req: SessionRequest): Promise<MyGuildsView> {
    if (!req.sessionToken) throw CommonErrors.unauthenticated();
    return this.myGuilds.list(session, req.sessionToken);
  }
}
