import type { RequestUsage } from './request-usage.ts';
import type { HttpAnswer } from './rest-gateway.ts';

/** Where the local gateway's request counts are served (loopback only, as every `/_local/` path). */
export const LOCAL_USAGE_PATH = '/_local/usage';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `GET /_local/usage?from=YYYY-MM-DD&to=YYYY-MM-DD`: `{"rest": [{date, account, keyId, requests}],
 * "usageRoot": "<folder>"}`, the gateway's request counts and the folder of the stack's usage rows
 * (scripts/local/usage-files.ts), which `npm run usage` reads.
 */
export function usageAnswer(usage: RequestUsage, url: string, usageRoot: string): HttpAnswer {
  const query = new URL(url, 'http://localhost').searchParams;
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  if (!DAY.test(from) || !DAY.test(to)) {
    return {
      statusCode: 400,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        error: { code: 'invalid_parameter', message: 'from and to must be YYYY-MM-DD' },
      }),
    };
  }
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ rest: usage.between(from, to), usageRoot }),
  };
}
