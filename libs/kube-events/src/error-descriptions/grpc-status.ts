import { readField } from './read-field.js';

/** gRPC's status codes by number (grpc/doc/statuscodes.md). */
const GRPC_STATUS_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/**
 * What differs between two reports of the same failure in grpc-js'
 * `details`: the timings of each step (`name resolution: 0.001s`), how long
 * it waited (`after 0.152s`), the peer's address (`remote_addr=…`, an IP
 * and port) and the time of the last attempt. Each pattern is bounded.
 */
const VARYING_DETAILS: readonly RegExp[] = [
  /,?\s*remote_addr=[^\s,]{0,64}/g,
  /,?\s*[a-z][a-z ]{0,40}: \d{1,10}(?:\.\d{1,10})?m?s\b/gi,
  /\s+after \d{1,10}(?:\.\d{1,10})?m?s\b/gi,
  /\s*\(\d{4}-\d\d-\d\dT[\d:.]{1,20}Z?\)/g,
  /\s*\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g,
  /\s*\[[0-9a-f:.]{2,45}\](?::\d{1,5})?/gi,
  /\s*Resolution note:\s*$/i,
];

/**
 * The description of a grpc-js `ServiceError` (a numeric `code` of 1 to
 * 16 with `details` and `metadata`): its status name and its details'
 * words, without timings or addresses, so that the same failure always
 * reads the same and its Events fold (`DEADLINE_EXCEEDED: Deadline
 * exceeded`); `undefined` for anything else.
 */
export function grpcDescription(error: object): string | undefined {
  const code = readField(error, 'code');
  const details = readField(error, 'details');
  const metadata = readField(error, 'metadata');
  if (typeof code !== 'number' || !Number.isInteger(code) || code < 1 || code >= GRPC_STATUS_NAMES.length) {
    return undefined;
  }
  if (typeof details !== 'string' || typeof metadata !== 'object' || metadata === null) return undefined;
  let words = details.slice(0, 4096);
  for (const pattern of VARYING_DETAILS) words = words.replace(pattern, '');
  words = words
    .replace(/\s+([.,;:])/g, '$1')
    .replace(/[\s.,;:]+$/, '')
    .trim();
  const name = GRPC_STATUS_NAMES[code];
  return words ? `${name}: ${words}` : name;
}
