import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FeedSettingsError,
  feedCredentials,
  feedEnvironment,
  feedSymbols,
  luldTier1Symbols,
  secureEndpoint,
} from '#containers/feed-connector/settings';
import { luldTierOf } from '#domain/feed/price-band';

const secrets = mockClient(SecretsManagerClient);
afterEach(() => secrets.reset());

describe('feedEnvironment', () => {
  it('reads the contract names', () => {
    expect(
      feedEnvironment({ FEED_PROVIDER: 'polygon', TRADES_STREAM_NAME: 'trades', FEED_SYMBOLS: 'AAPL,ES1!' }),
    ).toEqual({ FEED_PROVIDER: 'polygon', TRADES_STREAM_NAME: 'trades', FEED_SYMBOLS: 'AAPL,ES1!' });
  });

  it('names the variable that is wrong', () => {
    expect(() => feedEnvironment({ FEED_PROVIDER: 'iex' })).toThrow(FeedSettingsError);
    expect(() => feedEnvironment({ FEED_PROVIDER: 'iex' })).toThrow(/FEED_PROVIDER/);
    expect(() => feedEnvironment({ FEED_PROVIDER: 'alpaca', FEED_URL: 'not a url' })).toThrow(/FEED_URL/);
  });
});

describe('secure endpoints', () => {
  it('refuses a clear-text FEED_URL except to a loopback address', () => {
    const env = (url: string) => ({ FEED_PROVIDER: 'alpaca', FEED_URL: url });
    expect(() => feedEnvironment(env('ws://stream.example.com/v2/sip'))).toThrow(
      /^FEED_URL must be a wss:\/\/ URL \(ws:\/\/ only to a loopback address\): ws:\/\/stream.example.com would carry the credentials in clear text$/,
    );
    expect(() => feedEnvironment(env('http://stream.example.com'))).toThrow(FeedSettingsError);
    for (const url of [
      'wss://stream.example.com/v2/sip',
      'ws://127.0.0.1:8080/v2/iex',
      'ws://localhost:1',
      'ws://[::1]:2/x',
      'ws://127.9.8.7',
    ]) {
      expect(feedEnvironment(env(url)).FEED_URL).toBe(url);
    }
  });

  it('holds REST origins to https', () => {
    expect(secureEndpoint('--rest-url', 'https://api.massive.com', 'https:')).toBe('https://api.massive.com');
    expect(secureEndpoint('--rest-url', 'http://127.0.0.1:9', 'https:')).toBe('http://127.0.0.1:9');
    expect(() => secureEndpoint('--rest-url', 'http://api.massive.com', 'https:')).toThrow(
      /^--rest-url must be/,
    );
    expect(() => secureEndpoint('--rest-url', 'http://127.0.0.1.example.com', 'https:')).toThrow(
      FeedSettingsError,
    );
    expect(() => secureEndpoint('--url', 'nope', 'wss:')).toThrow(/--url is not a URL/);
  });
});

describe('feedCredentials', () => {
  it('reads the provider names from the environment without a secret', async () => {
    expect(await feedCredentials('polygon', undefined, { POLYGON_API_KEY: 'k' })).toEqual({
      POLYGON_API_KEY: 'k',
    });
  });

  it('reads the secret JSON when a secret is named, once', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: 'arn:secret' }).resolves({
      SecretString: JSON.stringify({ APCA_API_KEY_ID: 'id', APCA_API_SECRET_KEY: 's', extra: 'x' }),
    });
    expect(await feedCredentials('alpaca', 'arn:secret', {})).toEqual({
      APCA_API_KEY_ID: 'id',
      APCA_API_SECRET_KEY: 's',
    });
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('says which names are missing, never their values', async () => {
    const error = await feedCredentials('alpaca', undefined, { APCA_API_KEY_ID: 'visible-id' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FeedSettingsError);
    expect(String(error)).toContain('APCA_API_SECRET_KEY missing from the environment');
    expect(String(error)).not.toContain('visible-id');
  });

  it('refuses a secret that is not JSON', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'POLYGON_API_KEY=k' });
    await expect(feedCredentials('polygon', 'arn:secret', {})).rejects.toThrow(/does not hold JSON/);
  });
});

describe('feedSymbols', () => {
  it('takes FEED_SYMBOLS when set, trimmed and upper-cased', () => {
    expect(feedSymbols(' aapl, ES1! ,')).toEqual(['AAPL', 'ES1!']);
  });

  it('defaults to the universe, index futures included', () => {
    const symbols = feedSymbols(undefined);
    expect(symbols).toContain('AAPL');
    expect(symbols).toEqual(expect.arrayContaining(['ES1!', 'NQ1!', 'RTY1!', 'YM1!']));
    expect(symbols.length).toBeGreaterThan(500);
  });

  it('says what to do when the universe file is not there', () => {
    expect(() => feedSymbols(undefined, 'nowhere.csv')).toThrow(/set FEED_SYMBOLS/);
  });
});

describe('luldTier1Symbols', () => {
  it('puts the universe (S&P 500 stocks, index ETFs) in Tier 1, any other stock in Tier 2, futures in none', () => {
    const tier1 = luldTier1Symbols();
    expect(luldTierOf('AAPL', tier1)).toBe(1);
    expect(luldTierOf('SPY', tier1)).toBe(1);
    expect(luldTierOf('QQQ', tier1)).toBe(1);
    expect(luldTierOf('GME', tier1)).toBe(2);
    expect(luldTierOf('ES1!', tier1)).toBeUndefined();
  });

  it('leaves every stock Tier 2 (the wider band) when the universe file cannot be read', () => {
    expect(luldTierOf('AAPL', luldTier1Symbols('nowhere.csv'))).toBe(2);
  });
});
