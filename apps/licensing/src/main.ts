import 'reflect-metadata';
import { runService } from '@lib/runtime';
import { licensingService } from './service';

void runService(licensingService);
