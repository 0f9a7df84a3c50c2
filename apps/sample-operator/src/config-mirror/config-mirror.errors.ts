import { acceptMirrorsFromLabel } from './config-mirror.constants.js';
import * as messages from './config-mirror.messages.js';

/**
 * Why a ConfigMirror cannot converge. `reason` becomes the Ready condition's
 * reason; `message` is the Warning Event's note and the condition's message.
 */
export class ConfigMirrorError extends Error {
  constructor(
    /** CamelCase cause, e.g. `SourceNotFound`. */
    readonly reason: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The source ConfigMap (or its namespace) does not exist. */
export class SourceNotFoundError extends ConfigMirrorError {
  constructor(readonly source: string) {
    super('SourceNotFound', messages.sourceNotFound(source));
  }
}

/** Some target namespaces do not exist. */
export class TargetNamespaceNotFoundError extends ConfigMirrorError {
  constructor(readonly namespaces: readonly string[]) {
    super('TargetNamespaceNotFound', messages.targetNamespacesNotFound(namespaces));
  }
}

/**
 * `spec.sourceNamespace` names a namespace the mirror may not read. Thrown
 * before anything is read there, so it says nothing about what exists.
 */
export class SourceNotAllowedError extends ConfigMirrorError {
  constructor(
    readonly sourceNamespace: string,
    readonly mirrorNamespace: string,
  ) {
    super('SourceNotAllowed', messages.sourceNotAllowed(sourceNamespace, mirrorNamespace));
  }
}

/**
 * Some target namespaces have not opted in to copies from the mirror's
 * namespace (or do not exist: a namespace that is not there cannot opt in,
 * and the refusal does not tell the two apart).
 */
export class TargetNotAllowedError extends ConfigMirrorError {
  constructor(
    readonly namespaces: readonly string[],
    readonly mirrorNamespace: string,
  ) {
    super(
      'TargetNotAllowed',
      messages.targetsNotAllowed(namespaces, mirrorNamespace, acceptMirrorsFromLabel(mirrorNamespace)),
    );
  }
}

/** A ConfigMap of the source's name exists in a target namespace and belongs to someone else. */
export class TargetConflictError extends ConfigMirrorError {
  constructor(
    readonly target: string,
    readonly mirror: string,
  ) {
    super('TargetConflict', messages.targetNotManaged(target, mirror));
  }
}

/** The spec asks for something impossible. */
export class InvalidSpecError extends ConfigMirrorError {
  constructor(message: string) {
    super('InvalidSpec', message);
  }
}

/** An API request failed for another reason (RBAC, conflict, server error). */
export class ApiRequestError extends ConfigMirrorError {
  constructor(
    readonly statusCode: number | undefined,
    message: string,
    options?: ErrorOptions,
  ) {
    super(statusCode === 403 ? 'Forbidden' : 'ApiError', message, options);
  }
}

/**
 * Several targets failed: one error whose message lists every failure, with
 * the first failure's reason.
 */
export class TargetsFailedError extends ConfigMirrorError {
  constructor(readonly failures: readonly ConfigMirrorError[]) {
    super(failures[0]?.reason ?? 'ReconcileError', failures.map((failure) => failure.message).join('; '));
  }
}
