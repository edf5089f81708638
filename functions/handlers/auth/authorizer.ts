import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { defaultMessage } from '#contracts/errors';
import { findRouteByResource } from '#contracts/routes';
import type { Scope } from '#contracts/scopes';
import { authorize } from '#domain/access/authorization';
import type { CredentialLookup } from '#domain/access/ports';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { recordMetric } from '#runtime/metrics';
import { credentialLookup } from '#runtime/ports/access';
import type { ServicePorts } from '#runtime/ports/service-ports';

/** API Gateway answers a thrown `Unauthorized` with the UNAUTHORIZED gateway response (401). */
const UNAUTHORIZED = 'Unauthorized';

function policy(effect: 'Allow' | 'Deny', methodArn: string) {
  return {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: methodArn }],
  };
}

function isWebSocketHandshake(event: APIGatewayRequestAuthorizerEvent): boolean {
  return (event.requestContext as { routeKey?: string }).routeKey === '$connect';
}

/** A WebSocket handshake needs `ws:connect`; a REST request, its route's scope (none: no such route). */
function requiredScope(event: APIGatewayRequestAuthorizerEvent): Scope | undefined {
  if (isWebSocketHandshake(event)) return 'ws:connect';
  return findRouteByResource(event.httpMethod, event.resource)?.scope;
}

/**
 * The REQUEST authorizer of the REST API
 * (docs/architecture.md#rest-api-api-gateway-rest-api-v1-not-an-http-api) and of the WebSocket API's
 * `$connect` (docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes: a thrown
 * `Unauthorized` fails the upgrade with HTTP 401, a Deny with 403; the handshake's key may come in a
 * `key.` subprotocol entry, as browsers send it). Allow carries the caller in the context
 * (every WebSocket route of the connection sees it) and the key's usage identifier for the usage plan; Deny
 * carries the error code the ACCESS_DENIED gateway response renders.
 */
export const createHandler =
  (deps: { credentials: () => CredentialLookup }) =>
  async (
    event: APIGatewayRequestAuthorizerEvent,
    _context?: Context,
  ): Promise<APIGatewayAuthorizerResult> => {
    // A browser's handshake carries the key as a subprotocol (docs/websocket.md#connecting-from-a-browser).
    const decision = await authorize(event.headers, requiredScope(event), deps.credentials(), {
      keyInSubprotocol: isWebSocketHandshake(event),
    });
    if (decision.outcome === 'unauthenticated') {
      recordMetric('authorizerOutcomes', 1, '401');
      throw new Error(UNAUTHORIZED);
    }

    const { principal } = decision;
    if (decision.outcome === 'deny') {
      recordMetric('authorizerOutcomes', 1, `403:${decision.code}`);
      logger.info('access denied', { code: decision.code, keyId: principal.keyId, resource: event.resource });
      return {
        principalId: principal.accountId,
        policyDocument: policy('Deny', event.methodArn),
        context: { code: decision.code, message: defaultMessage(decision.code) },
      };
    }
    recordMetric('authorizerOutcomes', 1, 'allow');
    return {
      principalId: principal.accountId,
      policyDocument: policy('Allow', event.methodArn),
      context: { accountId: principal.accountId, keyId: principal.keyId, scopes: principal.scopes.join(',') },
      usageIdentifierKey: principal.usageIdentifierKey,
    };
  };

/** The authorizer on the service's ports (functions/runtime/ports/service-ports.ts): on AWS, or a local stack's. */
export const handlerOn = (p: Pick<ServicePorts, 'credentialLookup'>) =>
  instrumented(createHandler({ credentials: p.credentialLookup }));

export const handler = handlerOn({ credentialLookup });
