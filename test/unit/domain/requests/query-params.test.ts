import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { candlesQuerySchema } from '#domain/market-data/candles';
import { InvalidParameterError } from '#domain/requests/errors';
import {
  choiceListParam,
  clampedIntParam,
  optionalIntParam,
  parseParams,
  symbolListParam,
  textParam,
} from '#domain/requests/query-params';
import { breaksQuerySchema, inForceQuerySchema } from '#domain/strat/alerts';
import { PROTOTYPE_NAMES } from '../../../support/prototype-names.ts';

const schema = z.object({
  symbols: symbolListParam(),
  search: textParam(),
  limit: clampedIntParam({ default: 50, min: 1, max: 200 }),
});

describe('clampedIntParam', () => {
  it.each([
    [undefined, 50],
    ['', 50],
    ['  ', 50],
    ['10', 10],
    [' 10 ', 10],
    ['0', 1],
    ['-5', 1],
    ['1', 1],
    ['200', 200],
    ['201', 200],
    ['99999999999999999999', 200],
    ['2.9', 2],
    ['+7', 7],
  ])('reads limit=%j as %j', (raw, expected) => {
    expect(parseParams(schema, { limit: raw }).limit).toBe(expected);
  });

  it.each(['abc', '1e3', '0x10', '12abc', 'NaN', 'Infinity', '--1'])(
    'rejects limit=%j with 400 invalid_parameter naming limit',
    (raw) => {
      expect.assertions(3);
      try {
        parseParams(schema, { limit: raw });
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidParameterError);
        expect((error as InvalidParameterError).code).toBe('invalid_parameter');
        expect((error as InvalidParameterError).message).toBe('invalid parameter: limit must be a number');
      }
    },
  );
});

describe('optionalIntParam', () => {
  const sinceId = z.object({ since_id: optionalIntParam() });

  it.each([
    ['9007199254740991', 9007199254740991],
    ['0', 0],
    ['-0', 0],
    ['42.9', 42],
  ])('takes %s as %d', (raw, expected) => {
    expect(parseParams(sinceId, { since_id: raw }).since_id).toBe(expected);
  });

  it.each(['9007199254740992', '9007199254740993', '-9007199254740992', '9'.repeat(400), '1e400'])(
    'refuses %s, which a number cannot hold exactly, as invalid_parameter',
    (raw) => {
      expect(() => parseParams(sinceId, { since_id: raw })).toThrow(InvalidParameterError);
    },
  );

  it.each(['-1', '-0.5', '-9007199254740991', '-1e3'])(
    'refuses the negative %s as invalid_parameter, as ids start at 0',
    (raw) => {
      expect(() => parseParams(sinceId, { since_id: raw })).toThrow(
        new InvalidParameterError('since_id', raw === '-1e3' ? 'must be a number' : 'must not be negative'),
      );
    },
  );
});

describe('parseParams', () => {
  it('treats absent parameters (null from API Gateway) as defaults', () => {
    expect(parseParams(schema, null)).toEqual({ symbols: undefined, search: undefined, limit: 50 });
  });

  it('treats an empty symbols list as absent', () => {
    expect(parseParams(schema, { symbols: ' , ,' }).symbols).toBeUndefined();
  });

  it('trims text and treats an empty one as absent', () => {
    expect(parseParams(schema, { search: '  aa ' }).search).toBe('aa');
    expect(parseParams(schema, { search: '' }).search).toBeUndefined();
  });

  it('ignores parameters the route does not define', () => {
    expect(parseParams(schema, { other: 'x' })).toEqual({ symbols: undefined, search: undefined, limit: 50 });
  });
});

describe('parameters as any request can name them (property)', () => {
  const routes = { candles: candlesQuerySchema, inForce: inForceQuerySchema, breaks: breaksQuerySchema };
  const names = fc.constantFrom(
    ...PROTOTYPE_NAMES,
    'since_id',
    'start',
    'end',
    'limit',
    'window_minutes',
    'timeframe',
    'symbols',
  );
  const values = fc.oneof(
    fc.string(),
    fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
    fc
      .date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString()),
  );

  it('parses or refuses with invalid_parameter, whatever the names, as API Gateway hands them over (JSON)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.values(routes)),
        fc.array(fc.tuple(names, values)),
        (schema, pairs) => {
          // As Lambda receives the event: parsed JSON, so `__proto__` is an own property like any other.
          const raw = JSON.parse(JSON.stringify(Object.fromEntries(pairs)));
          try {
            parseParams(schema, raw);
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidParameterError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('takes every since_id from 0 to 2^53 - 1 and refuses every negative or larger one', () => {
    const sinceId = z.object({ since_id: optionalIntParam() });
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }), (id) => {
        const accepted = id >= 0n && id <= BigInt(Number.MAX_SAFE_INTEGER);
        if (accepted) expect(parseParams(sinceId, { since_id: String(id) }).since_id).toBe(Number(id));
        else expect(() => parseParams(sinceId, { since_id: String(id) })).toThrow(InvalidParameterError);
      }),
    );
  });
});

describe('repeated parameters (API Gateway multiValueQueryStringParameters)', () => {
  const withChoices = z.object({
    symbols: symbolListParam(),
    timeframes: choiceListParam(['D', 'W', 'M'] as const),
    limit: clampedIntParam({ default: 50, min: 1, max: 200 }),
    search: textParam(),
  });

  it('reads symbols=AAPL&symbols=MSFT as both, combined with the comma form', () => {
    const parsed = parseParams(
      withChoices,
      { symbols: 'NVDA,TSLA' },
      { symbols: ['AAPL', 'msft', 'NVDA,TSLA'] },
    );
    expect(parsed.symbols).toEqual(['AAPL', 'MSFT', 'NVDA', 'TSLA']);
  });

  it('reads every list parameter repeated, not only symbols', () => {
    const parsed = parseParams(withChoices, { timeframes: 'm' }, { timeframes: ['d', 'W,m'] });
    expect(parsed.timeframes).toEqual(['D', 'W', 'M']);
  });

  it('takes a scalar given twice with the same value, and refuses one given two different values', () => {
    expect(parseParams(withChoices, { limit: '5' }, { limit: ['5', '5'] }).limit).toBe(5);
    expect(() => parseParams(withChoices, { limit: '9' }, { limit: ['5', '9'] })).toThrow(
      'invalid parameter: limit is given more than once with different values',
    );
  });

  it('reads the single-value map alone when the multi-value map is absent', () => {
    expect(parseParams(withChoices, { symbols: 'AAPL' }, null).symbols).toEqual(['AAPL']);
  });
});
