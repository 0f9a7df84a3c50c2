// An OTLP/gRPC trace receiver for kube-apiserver's tracing (--tracing-config-file): it answers the collector's
// TraceService/Export and keeps what a test reads of each span (ids, parent, links, name). The protobuf messages are
// read field by field, as the OTLP protocol defines them (opentelemetry-proto, trace/v1/trace.proto), with no
// generated code.
import { Server, ServerCredentials, type ServiceDefinition, type handleUnaryCall } from '@grpc/grpc-js';

/** What a test reads of a span kube-apiserver exported; ids in lower-case hex, as in a traceparent. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
}

/** A running receiver: where kube-apiserver sends to, and what it sent. */
export interface OtlpTraceReceiver {
  /** `127.0.0.1:<port>`, the tracing configuration's `endpoint`. */
  readonly endpoint: string;
  readonly spans: readonly ReceivedSpan[];
  close(): Promise<void>;
}

const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

/** Fields of one protobuf message: number and value (a varint, or the bytes of a length-delimited field). */
function fieldsOf(message: Buffer): [number, bigint | Buffer][] {
  const fields: [number, bigint | Buffer][] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = message[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < message.length) {
    const tag = Number(varint());
    const [field, wireType] = [tag >>> 3, tag & 7];
    if (wireType === 0) fields.push([field, varint()]);
    else if (wireType === 2) {
      const length = Number(varint());
      fields.push([field, message.subarray(at, at + length)]);
      at += length;
    } else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else throw new Error(`wire type ${wireType} is not OTLP's`);
  }
  return fields;
}

const bytesOf = (message: Buffer, field: number): Buffer[] =>
  fieldsOf(message)
    .filter(([number, value]) => number === field && Buffer.isBuffer(value))
    .map(([, value]) => value as Buffer);

const hexOf = (message: Buffer, field: number): string => bytesOf(message, field)[0]?.toString('hex') ?? '';

/** The spans of an `ExportTraceServiceRequest`: resource_spans (1) → scope_spans (2) → spans (2). */
function spansOf(request: Buffer): ReceivedSpan[] {
  return bytesOf(request, 1)
    .flatMap((resourceSpans) => bytesOf(resourceSpans, 2))
    .flatMap((scopeSpans) => bytesOf(scopeSpans, 2))
    .map((span) => ({
      traceId: hexOf(span, 1),
      spanId: hexOf(span, 2),
      parentSpanId: hexOf(span, 4),
      name: bytesOf(span, 5)[0]?.toString('utf8') ?? '',
      links: bytesOf(span, 13).map((link) => ({ traceId: hexOf(link, 1), spanId: hexOf(link, 2) })),
    }));
}

/** Starts a receiver on a free loopback port. */
export async function startOtlpTraceReceiver(): Promise<OtlpTraceReceiver> {
  const spans: ReceivedSpan[] = [];
  const raw = (buffer: Buffer) => buffer;
  const service: ServiceDefinition = {
    Export: {
      path: EXPORT_PATH,
      requestStream: false,
      responseStream: false,
      requestSerialize: raw,
      requestDeserialize: raw,
      responseSerialize: raw,
      responseDeserialize: raw,
    },
  };
  const exported: handleUnaryCall<Buffer, Buffer> = (call, callback) => {
    spans.push(...spansOf(call.request));
    // An empty ExportTraceServiceResponse: everything accepted.
    callback(null, Buffer.alloc(0));
  };
  const server = new Server();
  server.addService(service, { Export: exported });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return {
    endpoint: `127.0.0.1:${port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
