/**
 * What an Event says and whom it is about, as the API server holds it: the
 * fields it keeps as they were created (an update cannot change them), by
 * which a recorder tells whether an Event it meets is its series' own.
 */
export interface EventStatement {
  /** `regarding.uid`: the object it is about. */
  readonly regardingUid: string | undefined;
  /** `type`: `Normal` or `Warning`. */
  readonly type: string | undefined;
  /** `reason`. */
  readonly reason: string | undefined;
  /** `action`. */
  readonly action: string | undefined;
  /** `reportingController`: the controller that wrote it. */
  readonly reportingController: string | undefined;
  /** `note`. */
  readonly note: string | undefined;
  /** `related`, as far as it names an object. */
  readonly related: RelatedObject | undefined;
}

/** The object an Event's `related` names. */
export interface RelatedObject {
  /** Its kind. */
  readonly kind: string | undefined;
  /** Its namespace; none for a cluster-scoped object. */
  readonly namespace: string | undefined;
  /** Its name. */
  readonly name: string | undefined;
  /** Its uid. */
  readonly uid: string | undefined;
}

/**
 * The longest field of a statement kept, in characters: the server holds a
 * note to 1 KiB and every other field below it. A longer one is not an
 * Event any recorder wrote.
 */
const MAX_STATEMENT_FIELD_CHARS = 4096;

/**
 * The statement of an Event from a server's answer; `undefined` when a field
 * is not a string or is over its bound, which no Event a recorder wrote has,
 * so that nothing unreadable is taken for a match.
 */
export function statementOf(answer: Record<string, unknown>): EventStatement | undefined {
  const regarding = answer.regarding;
  const related = answer.related;
  if (!isOptionalRecord(regarding) || !isOptionalRecord(related)) return undefined;
  const fields = [
    regarding?.uid,
    answer.type,
    answer.reason,
    answer.action,
    answer.reportingController,
    answer.note,
    related?.kind,
    related?.namespace,
    related?.name,
    related?.uid,
  ];
  if (!fields.every(isBoundedText)) return undefined;
  // JSON's null is an absent field, as the server reads it.
  const [regardingUid, type, reason, action, reportingController, note, kind, namespace, name, uid] = fields.map(
    (field) => (field ?? undefined) as string | undefined,
  );
  return {
    regardingUid,
    type,
    reason,
    action,
    reportingController,
    note,
    related: related ? { kind, namespace, name, uid } : undefined,
  };
}

function isBoundedText(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === 'string' && value.length <= MAX_STATEMENT_FIELD_CHARS)
  );
}

function isOptionalRecord(value: unknown): value is Record<string, unknown> | undefined | null {
  return value === undefined || value === null || (typeof value === 'object' && !Array.isArray(value));
}
