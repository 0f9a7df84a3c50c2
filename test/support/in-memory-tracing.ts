// Spans kept in memory, from a tracer provider that the tests of one describe block register globally (with the
// async-hooks context manager a Nest application needs): what the library and a test's own code trace.
import { jest } from '@jest/globals';
import { context, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** An exporter that keeps the finished spans, and the provider that feeds it. */
export interface InMemoryTracing {
  readonly spans: InMemorySpanExporter;
  readonly provider: TracerProvider;
}

export function inMemoryTracing(): InMemoryTracing {
  const spans = new InMemorySpanExporter();
  return { spans, provider: new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] }) };
}

/** Makes `provider` the global one for the tests of the enclosing describe block, and empties `spans` before each. */
export function traceGloballyWith({ spans, provider }: InMemoryTracing): void {
  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(async () => {
    trace.disable();
    context.disable();
    await provider.shutdown();
  });
  beforeEach(() => spans.reset());
}

/**
 * Makes every span `tracer` starts from now on throw when it ends, as a
 * faulty span processor does; the returned spy records the starts, and
 * `mockRestore()` undoes it.
 */
export function spansThrowingOnEnd(tracer: Tracer) {
  const startSpan = tracer.startSpan.bind(tracer);
  return jest.spyOn(tracer, 'startSpan').mockImplementation((...args) => {
    const span = startSpan(...args);
    span.end = () => {
      throw new Error('the processor failed');
    };
    return span;
  });
}
