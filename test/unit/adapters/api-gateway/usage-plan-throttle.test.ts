import { APIGatewayClient, GetUsagePlanCommand, UpdateUsagePlanCommand } from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { UsagePlanThrottle } from '#adapters/api-gateway/usage-plan-throttle';

describe('UsagePlanThrottle', () => {
  it('reads the plan’s throttle and replaces its rate and burst', async () => {
    const apiGateway = mockClient(APIGatewayClient);
    apiGateway.on(GetUsagePlanCommand).resolves({ throttle: { rateLimit: 25, burstLimit: 100 } });
    apiGateway.on(UpdateUsagePlanCommand).resolves({});
    const throttle = new UsagePlanThrottle(new APIGatewayClient({}), 'plan-1');

    expect(await throttle.current()).toEqual({ rateLimit: 25, burstLimit: 100 });
    await throttle.apply({ rateLimit: 50, burstLimit: 250 });

    expect(apiGateway.commandCalls(UpdateUsagePlanCommand)[0]?.args[0].input).toEqual({
      usagePlanId: 'plan-1',
      patchOperations: [
        { op: 'replace', path: '/throttle/rateLimit', value: '50' },
        { op: 'replace', path: '/throttle/burstLimit', value: '250' },
      ],
    });
  });

  it('knows no limits when the plan has no throttle', async () => {
    mockClient(APIGatewayClient).on(GetUsagePlanCommand).resolves({});
    expect(await new UsagePlanThrottle(new APIGatewayClient({}), 'p').current()).toBeUndefined();
  });
});
