import { Controller, Get, UseGuards } from '@nestjs/common';
import { PublicRoute } from '@lib/identity';
import { UnauthenticatedError } from '@lib/problem-details';
import { CurrentSession, SessionGuard } from './session.guard';
import type { Session } from './sessions';
import { toUserView, type UserView } from './user-view';
import { UsersRepository } from './users.repository';

export interface MeView extends UserView {
  session: { id: string; created_at: string; expires_at: string };
}

/** Who is logged in (the gateway answers this one itself). */
@Controller('api/v1/me')
@PublicRoute()
@UseGuards(SessionGuard)
export class MeController {
  constructor(private readonly users: UsersRepository) {}

  @Get()
  async me(@CurrentSession() session: Session): Promise<MeView> {
    const user = await this.users.get(session.user_id);
    if (!user) throw new UnauthenticatedError('This account no longer exists. Log in again.');
    return {
      ...toUserView(user),
      session: { id: session.session_id, created_at: session.created_at, expires_at: session.expires_at },
    };
  }
}
