import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { PublishesFailuresExplorer } from './publishes-failures.explorer.js';

/**
 * Holds the one explorer that wraps `@PublishesFailures` methods. A static
 * module is instantiated once however many `KubeEventsModule.forRoot` import it.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [PublishesFailuresExplorer],
})
export class PublishesFailuresModule {}
