import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import type { UsagePlanRegistry } from '#domain/access/ports';

/**
 * Registers each partner key's usage identifier as an API Gateway API key in the usage plan, so API
 * Gateway throttles per key (docs/architecture.md#rest-api-api-gateway-rest-api-v1-not-an-http-api). The API
 * Gateway key is named after our key id; its value is the usage identifier, never the partner's key.
 */
export class ApiGatewayUsagePlanRegistry implements UsagePlanRegistry {
  constructor(
    private readonly client: APIGatewayClient,
    private readonly usagePlanId: string,
  ) {}

  async register(key: { keyId: string; label: string; usageIdentifierKey: string }): Promise<void> {
    const apiKey = await this.client.send(
      new CreateApiKeyCommand({
        name: key.keyId,
        description: key.label,
        value: key.usageIdentifierKey,
        enabled: true,
      }),
    );
    await this.client.send(
      new CreateUsagePlanKeyCommand({ usagePlanId: this.usagePlanId, keyId: apiKey.id, keyType: 'API_KEY' }),
    );
  }

  async deregister(keyId: string): Promise<void> {
    const found = await this.client.send(new GetApiKeysCommand({ nameQuery: keyId, limit: 10 }));
    for (const apiKey of found.items ?? []) {
      if (apiKey.name !== keyId || !apiKey.id) continue;
      try {
        await this.client.send(new DeleteApiKeyCommand({ apiKey: apiKey.id }));
      } catch (error) {
        if (!(error instanceof NotFoundException)) throw error;
      }
    }
  }
}
