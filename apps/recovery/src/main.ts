import 'reflect-metadata';
import { runService } from '@lib/runtime';
import { recoveryService } from './service';

void runService(recoveryService);
