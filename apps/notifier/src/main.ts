import 'reflect-metadata';
import { runService } from '@lib/runtime';
import { notifierService } from './service';

void runService(notifierService);
