import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger, type INestApplication, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { OperatorModule } from './operator.module.js';
import { OPERATOR_OPTIONS, type OperatorOptions, type ResolvedOperatorOptions } from './operator.options.js';
import { redactingLogger } from './redaction/redacting-logger.js';

/** The operator's application (`overrides` over its environment); every log line, Nest's too, is redacted. */
export async function createOperator(
  overrides?: OperatorOptions,
  logger?: LoggerService | LogLevel[] | false,
): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(OperatorModule.forRoot(overrides), {
    logger: redactingLogger(logger),
    abortOnError: false,
    forceCloseConnections: true,
  });
  // The probes' port is read without authentication: it names no framework either.
  app.disable('x-powered-by');
  return app;
}

/** Listens on the health port when one is set (`HEALTH_PROBE_PORT`), else only initialises; resolves with the port. */
export async function listenForProbes(app: INestApplication): Promise<number | undefined> {
  const { healthProbePort: port, healthProbeBindAddress: host } = app.get<ResolvedOperatorOptions>(OPERATOR_OPTIONS);
  if (port === undefined) return app.init().then(() => undefined);
  const server = (await (host === undefined ? app.listen(port) : app.listen(port, host))) as Server;
  const listening = (server.address() as AddressInfo).port;
  new Logger('Operator').log(
    `health probes on ${host ?? 'every address'}, port ${listening} (/healthz, /readyz, /status; no authentication)`,
  );
  return listening;
}
