import { IsInt, Max, Min } from 'class-validator';
import { LOCKDOWN_MINUTES_LIMITS } from '../workflows/antinuke-contract';

export class StartLockdownDto {
  /** How long the lockdown lasts before it lifts itself: 1 to 1440 minutes (the platform pauses invites for 24 hours at most). */
  @IsInt()
  @Min(LOCKDOWN_MINUTES_LIMITS.min)
  @Max(LOCKDOWN_MINUTES_LIMITS.max)
  minutes!: number;
}
