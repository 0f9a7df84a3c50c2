import { Injectable, MisdirectedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

/**
 * Lets through only a request addressed to an IP address or `localhost` (as
 * kubelet's probes and `kubectl port-forward` are), and answers any other
 * `Host` 421: a web page whose name was rebound to the pod's address cannot
 * read what the route answers without authentication.
 */
@Injectable()
export class AddressedByIpGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const host = context.switchToHttp().getRequest<IncomingMessage>().headers.host;
    const name = host?.startsWith('[') ? host.slice(1, host.indexOf(']')) : host?.replace(/:\d+$/, '');
    if (name === undefined || isIP(name) !== 0 || name.toLowerCase() === 'localhost') return true;
    throw new MisdirectedException('this answers requests to an IP address or localhost');
  }
}
