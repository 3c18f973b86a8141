import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { UserDirectoryInterceptor } from './user-directory.interceptor';
import { UserDirectory } from './user-directory.repository';

/** The UserDirectory, filled from every user request recovery serves. */
@Module({
  providers: [UserDirectory, { provide: APP_INTERCEPTOR, useClass: UserDirectoryInterceptor }],
  exports: [UserDirectory],
})
export class UsersModule {}
