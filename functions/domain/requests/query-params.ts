import * as z from 'zod';
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
export function withWireForm<Schema extends z.ZodType>(schema: Schema, form: WireForm): Schema {
  wireForms.add(schema, form);
  return schema;
}

function present(raw: string | undefined): string | undefined {
  const trimmed = raw?.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * A comma-separated ticker list; absent or empty gives `undefined`. `required`: the route answers
 * `missing_symbols` without it (docs/partner-guide.md#latest-prices); parsing is the same.
 */
export function symbolListParam(options: { required?: boolean } = {}) {
  const schema = z
    .string()
    .optional()
    .transform((raw) => {
      const value = present(raw);
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
  return withWireForm(z.string().optional().transform(present), { schema: { type: 'string' } });
}

/** A number, truncated to an integer and clamped into the limit's range; absent gives its default. */
export function clampedIntParam(limit: ClampedLimit) {
  const schema = z
    .string()
    .optional()
    .transform((raw, context) => {
      const value = present(raw);
      if (value === undefined) return limit.default;
      if (!DECIMAL_NUMBER.test(value)) {
        context.addIssue({ code: 'custom', message: 'must be a number' });
        return z.NEVER;
      }
      return Math.min(limit.max, Math.max(limit.min, Math.trunc(Number(value))));
    });
  return withWireForm(schema, {
    schema: { type: 'integer', minimum: limit.min, maximum: limit.max, default: limit.default },
    description: `Default ${limit.default}; a fraction is truncated and a value outside ${limit.min}..${limit.max} is clamped.`,
  });
}

/**
 * A whole number, or `undefined` when absent (`since_id`). One beyond what a JavaScript number holds exactly
 * (more than 2^53 - 1 either way) is refused as `invalid_parameter` rather than rounded, so it never reaches
 * storage as an inexact number or as Infinity.
 */
export function optionalIntParam() {
  const schema = z
    .string()
    .optional()
    .transform((raw, context) => {
      const value = present(raw);
      if (value === undefined) return undefined;
      if (!DECIMAL_NUMBER.test(value)) {
        context.addIssue({ code: 'custom', message: 'must be a number' });
        return z.NEVER;
      }
      const whole = Math.trunc(Number(value));
      if (!Number.isSafeInteger(whole)) {
        context.addIssue({
          code: 'custom',
          message: `must be at most ${Number.MAX_SAFE_INTEGER} either way`,
        });
        return z.NEVER;
      }
      return whole;
    });
  return withWireForm(schema, { schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } });
}

/** One of `choices`, matched case-insensitively and answered in its canonical form; absent gives `fallback`. */
export function choiceParam<Choice extends string>(choices: readonly Choice[], fallback: Choice) {
  const schema = z
    .string()
    .optional()
    .transform((raw, context): Choice => {
      const value = present(raw);
      if (value === undefined) return fallback;
      const choice = choices.find((candidate) => candidate.toLowerCase() === value.toLowerCase());
      if (choice === undefined) {
        context.addIssue({ code: 'custom', message: `must be one of ${choices.join(', ')}` });
        return z.NEVER;
      }
      return choice;
    });
  return withWireForm(schema, {
    schema: { type: 'string', enum: [...choices], default: fallback },
    description: 'Case-insensitive.',
  });
}

/** A comma-separated list of `choices` (case-insensitive, canonical form, repeats dropped); absent gives `undefined`. */
export function choiceListParam<Choice extends string>(choices: readonly Choice[]) {
  const schema = z
    .string()
    .optional()
    .transform((raw, context): Choice[] | undefined => {
      const value = present(raw);
      if (value === undefined) return undefined;
      const picked = new Set<Choice>();
      for (const part of value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean)) {
        const choice = choices.find((candidate) => candidate.toLowerCase() === part.toLowerCase());
        if (choice === undefined) {
          context.addIssue({ code: 'custom', message: `has "${part}", not one of ${choices.join(', ')}` });
          return z.NEVER;
        }
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

/** Parses raw parameters with a schema of the blocks above; the first problem becomes the 400. */
export function parseParams<Schema extends z.ZodType>(schema: Schema, raw: RawParams): z.output<Schema> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const parameter = issue?.path.map(String).join('.') || 'query';
  throw new InvalidParameterError(parameter, issue?.message ?? 'is not valid');
}
