import { Injectable, type OnModuleInit } from '@nestjs/common';
import { LibraryLogger } from '../text/library-logger.js';
import { DiscoveryService, Reflector } from '@nestjs/core';
import type { KubeEventsSinkOptions } from './kube-events-sink.decorator.js';
import type { EventSink } from './event-sink.js';
import { KUBE_EVENTS_SINK_METADATA } from '../kube-events.constants.js';
import {
  NOT_A_SINK,
  SINK_MAX_IN_FLIGHT_INVALID,
  NOT_A_POSITIVE_INTEGER,
  REQUEST_SCOPED_SINK_SKIPPED,
  UNKNOWN_SINK_RECORDER,
} from '../kube-events.messages.js';
import { RecorderSinks } from './recorder-sinks.js';
import { byRecorderName } from '../recorder/recorder-registry.js';

/**
 * Finds the providers decorated with `@KubeEventsSink` when the application
 * starts and subscribes each to its recorder's outcomes. One explorer
 * serves every recorder of the application.
 */
@Injectable()
export class EventSinksExplorer implements OnModuleInit {
  private readonly logger = new LibraryLogger('KubeEventsSink');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const providers = this.discovery.getProviders();
    const sinksByRecorder = byRecorderName(
      providers.flatMap(({ instance }) =>
        instance instanceof RecorderSinks ? [[instance.recorderName, instance] as const] : [],
      ),
    );
    for (const wrapper of providers) {
      const metatype = wrapper.metatype;
      if (typeof metatype !== 'function') continue;
      const options = this.reflector.get<KubeEventsSinkOptions | undefined>(KUBE_EVENTS_SINK_METADATA, metatype);
      if (!options) continue;
      const label = String(wrapper.name);
      if (!wrapper.isDependencyTreeStatic()) {
        this.logger.warn(REQUEST_SCOPED_SINK_SKIPPED(label));
        continue;
      }
      const sink = wrapper.instance as Partial<EventSink> | undefined;
      if (typeof sink?.handle !== 'function') throw new Error(NOT_A_SINK(label));
      const maxInFlight = options.maxInFlight;
      if (maxInFlight !== undefined && (!Number.isSafeInteger(maxInFlight) || maxInFlight < 1)) {
        throw new Error(SINK_MAX_IN_FLIGHT_INVALID(label, NOT_A_POSITIVE_INTEGER('maxInFlight', maxInFlight)));
      }
      const sinks = sinksByRecorder.get(options.recorder ?? null);
      if (!sinks) throw new Error(UNKNOWN_SINK_RECORDER(label, options.recorder));
      sinks.attach(sink as EventSink, label, maxInFlight);
    }
  }
}
