import * as z from 'zod/mini';
import { parseSymbolList } from '#domain/market-data/symbols';
import { InvalidParameterError } from './errors.ts';
import { type ClampedLimit, MAX_SYMBOLS_PER_REQUEST } from './limits.ts';

/**
 * Zod building blocks for query parameters, as API Gateway hands them over: strings, or absent. An empty
 * value counts as absent. A value of the wrong form is a 400 `invalid_parameter` naming the parameter.
 */
export type RawParams = Readonly<Record<string, string | undefined>> | null | undefined;

const DECIMAL_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/**
 * How a parameter is written on the wire, as the OpenAPI document describes it (docs/openapi.json): API Gateway
 * hands every parameter over as a string, so the schemas below parse strings, and this registry says what a
 * caller sends (a number with its bounds, a comma-separated list, one of a few values).
 */
export interface WireForm {
  /** The parameter's JSON schema (OpenAPI 3.1). */
  readonly schema: Readonly<Record<string, unknown>>;
  readonly description?: string;
  /** A list written as one comma-separated value (OpenAPI `style: form, explode: false`). */
  readonly commaSeparated?: boolean;
  /** Whether the route refuses a request without it (its own error, not a parse error). */
  readonly required?: boolean;
}

export const wireForms = z.registry<WireForm>();

/** Registers how `schema`'s parameter is written on the wire (see {@link WireForm}). */
export function withWireForm<Schema extends z.ZodMiniType>(schema: Schema, form: WireForm): Schema {
  wireForms.add(schema, form);
  return schema;
}

function present(raw: string | undefined): string | undefined {
  const trimmed = raw?.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * A parameter as API Gateway hands it over (a string, or absent), trimmed (empty counts as absent) and turned
 * into its value by `convert`, which calls `refuse` with a message for a value of the wrong form (the 400
 * names the parameter).
 */
export function queryParam<Value>(
  convert: (value: string | undefined, refuse: (message: string) => never) => Value,
) {
  return z.pipe(
    z.optional(z.string()),
    z.transform((raw: string | undefined, payload) =>
      convert(present(raw), (message) => {
        payload.issues.push({ code: 'custom', message, input: raw });
        return z.NEVER;
      }),
    ),
  );
}

/**
 * A comma-separated ticker list; absent or empty gives `undefined`. `required`: the route answers
 * `missing_symbols` without it (docs/partner-guide.md#latest-prices); parsing is the same.
 */
export function symbolListParam(options: { required?: boolean } = {}) {
  const schema = queryParam((value) => {
    if (value === undefined) return undefined;
    const symbols = parseSymbolList(value);
    return symbols.length === 0 ? undefined : symbols;
  });
  return withWireForm(schema, {
    schema: { type: 'array', items: { type: 'string' }, ...(options.required ? { minItems: 1 } : {}) },
    description: `Comma-separated tickers, case-insensitive; the first ${MAX_SYMBOLS_PER_REQUEST} distinct ones count.`,
    commaSeparated: true,
    ...(options.required ? { required: true } : {}),
  });
}

/** Free text, trimmed; absent or empty gives `undefined`. */
export function textParam() {
  return withWireForm(
    queryParam((value) => value),
    { schema: { type: 'string' } },
  );
}

/** A number, truncated to an integer and clamped into the limit's range; absent gives its default. */
export function clampedIntParam(limit: ClampedLimit) {
  const schema = queryParam((value, refuse) => {
    if (value === undefined) return limit.default;
    if (!DECIMAL_NUMBER.test(value)) return refuse('must be a number');
    return Math.min(limit.max, Math.max(limit.min, Math.trunc(Number(value))));
  });
  return withWireForm(schema, {
    schema: { type: 'integer', minimum: limit.min, maximum: limit.max, default: limit.default },
    description: `Default ${limit.default}; a fraction is truncated and a value outside ${limit.min}..${limit.max} is clamped.`,
  });
}

/**
 * A whole number from 0, or `undefined` when absent (`since_id`: ids start at 0). A negative one is refused as
 * `invalid_parameter`, and so is one beyond what a JavaScript number holds exactly (more than 2^53 - 1) rather
 * than rounded, so it never reaches storage as an inexact number or as Infinity.
 */
export function optionalIntParam() {
  const schema = queryParam((value, refuse) => {
    if (value === undefined) return undefined;
    if (!DECIMAL_NUMBER.test(value)) return refuse('must be a number');
    const number = Number(value);
    if (number < 0) return refuse('must not be negative');
    // `+ 0` turns -0 (from "-0" or "-0.5") into 0.
    const whole = Math.trunc(number) + 0;
    if (!Number.isSafeInteger(whole)) return refuse(`must be at most ${Number.MAX_SAFE_INTEGER}`);
    return whole;
  });
  return withWireForm(schema, { schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } });
}

/** One of `choices`, matched case-insensitively and answered in its canonical form; absent gives `fallback`. */
export function choiceParam<Choice extends string>(choices: readonly Choice[], fallback: Choice) {
  const schema = queryParam((value, refuse): Choice => {
    if (value === undefined) return fallback;
    return canonicalChoice(choices, value) ?? refuse(`must be one of ${choices.join(', ')}`);
  });
  return withWireForm(schema, {
    schema: { type: 'string', enum: [...choices], default: fallback },
    description: 'Case-insensitive.',
  });
}

/** A comma-separated list of `choices` (case-insensitive, canonical form, repeats dropped); absent gives `undefined`. */
export function choiceListParam<Choice extends string>(choices: readonly Choice[]) {
  const schema = queryParam((value, refuse): Choice[] | undefined => {
    if (value === undefined) return undefined;
    const picked = new Set<Choice>();
    for (const part of value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)) {
      const choice = canonicalChoice(choices, part);
      if (choice === undefined) return refuse(`has "${part}", not one of ${choices.join(', ')}`);
      picked.add(choice);
    }
    return picked.size === 0 ? undefined : [...picked];
  });
  return withWireForm(schema, {
    schema: { type: 'array', items: { type: 'string', enum: [...choices] } },
    description: 'Comma-separated, case-insensitive.',
    commaSeparated: true,
  });
}

function canonicalChoice<Choice extends string>(
  choices: readonly Choice[],
  value: string,
): Choice | undefined {
  return choices.find((candidate) => candidate.toLowerCase() === value.toLowerCase());
}

/** Parses raw parameters with a schema of the blocks above; the first problem becomes the 400. */
export function parseParams<Schema extends z.ZodMiniType>(schema: Schema, raw: RawParams): z.output<Schema> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const parameter = issue?.path.map(String).join('.') || 'query';
  throw new InvalidParameterError(parameter, issue?.message ?? 'is not valid');
}
