import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventSinksExplorer } from './event-sinks.explorer.js';

/**
 * Holds the one explorer that subscribes `@KubeEventsSink` providers. A
 * static module is instantiated once however many `KubeEventsModule.forRoot` import it.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [EventSinksExplorer],
})
export class EventSinksModule {}
