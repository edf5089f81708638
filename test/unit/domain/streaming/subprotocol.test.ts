import { describe, expect, it } from 'vitest';
import { selectedSubprotocol } from '#domain/streaming/subprotocol';

describe('selectedSubprotocol', () => {
  it.each([
    ['market-data.v1, key.mda_x', 'market-data.v1'],
    ['key.mda_x, market-data.v1', 'market-data.v1'],
    ['market-data.v1', 'market-data.v1'],
  ])('selects market-data.v1 from %j', (offered, expected) => {
    expect(selectedSubprotocol({ 'Sec-WebSocket-Protocol': offered })).toBe(expected);
  });

  it.each([['key.mda_x'], ['market-data.v2, key.mda_x'], ['']])(
    'selects none from %j, never the key entry',
    (offered) => {
      expect(selectedSubprotocol({ 'Sec-WebSocket-Protocol': offered })).toBeUndefined();
    },
  );

  it('selects none when no subprotocol is offered', () => {
    expect(selectedSubprotocol({ 'X-API-Key': 'mda_x' })).toBeUndefined();
  });
});
