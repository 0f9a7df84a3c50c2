// The API the fake serves (events.k8s.io/v1), and its internal request plumbing: scripted scenarios, replies, routes.

import type { FailOptions, RecordedRequest, RequestMatch, ScriptedReply } from './types.js';

export const GROUP = 'events.k8s.io';
export const GROUP_VERSION = `${GROUP}/v1`;
export const RESOURCE = `events.${GROUP}`;
export const MERGE_PATCH = 'application/merge-patch+json';
export const MICRO_TIME_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';
export const TIME_LAYOUT = '2006-01-02T15:04:05Z07:00';
/** k8s.io/apimachinery/pkg/util/rand's alphabet: no vowels, no confusable digits. */
export const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export const MAX_GENERATE_NAME_PREFIX = 58;
export const DEFAULT_WAIT_MS = 2_000;

export type Scenario =
  | { kind: 'hang'; match?: RequestMatch }
  | { kind: 'fail'; match?: RequestMatch; status: number; options: FailOptions }
  | { kind: 'loseAnswer'; match?: RequestMatch }
  | { kind: 'reset'; match?: RequestMatch }
  | { kind: 'truncateAnswer'; match?: RequestMatch; contentLength: 'full' | 'sent' }
  | { kind: 'delay'; match?: RequestMatch; ms: number; applyIfAborted: boolean }
  | { kind: 'respond'; match?: RequestMatch; reply: (request: RecordedRequest) => ScriptedReply };

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Route = { kind: 'collection'; namespace?: string } | { kind: 'item'; namespace: string; name: string };
