import * as z from 'zod';
import { parseSymbolList } from '#domain/market-data/symbols';
import { InvalidParameterError } from './errors.ts';
import type { ClampedLimit } from './limits.ts';

/**
 * Zod building blocks for query parameters, as API Gateway hands them over: strings, or absent. An empty
 * value counts as absent. A value of the wrong form is a 400 `invalid_parameter` naming the parameter.
 */
export type RawParams = Readonly<Record<string, string | undefined>> | null | undefined;

const DECIMAL_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function present(raw: string | undefined): string | undefined {
  const trimmed = raw?.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** A comma-separated ticker list; absent or empty gives `undefined`. */
export function symbolListParam() {
  return z
    .string()
    .optional()
    .transform((raw) => {
      const value = present(raw);
      if (value === undefined) return undefined;
      const symbols = parseSymbolList(value);
      return symbols.length === 0 ? undefined : symbols;
    });
}

/** Free text, trimmed; absent or empty gives `undefined`. */
export function textParam() {
  return z.string().optional().transform(present);
}

/** A number, truncated to an integer and clamped into the limit's range; absent gives its default. */
export function clampedIntParam(limit: ClampedLimit) {
  return z
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
}

/**
 * A whole number, or `undefined` when absent (`since_id`). One beyond what a JavaScript number holds exactly
 * (more than 2^53 - 1 either way) is refused as `invalid_parameter` rather than rounded, so it never reaches
 * storage as an inexact number or as Infinity.
 */
export function optionalIntParam() {
  return z
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
}

/** One of `choices`, matched case-insensitively and answered in its canonical form; absent gives `fallback`. */
export function choiceParam<Choice extends string>(choices: readonly Choice[], fallback: Choice) {
  return z
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
}

/** A comma-separated list of `choices` (case-insensitive, canonical form, repeats dropped); absent gives `undefined`. */
export function choiceListParam<Choice extends string>(choices: readonly Choice[]) {
  return z
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
}

/** Parses raw parameters with a schema of the blocks above; the first problem becomes the 400. */
export function parseParams<Schema extends z.ZodType>(schema: Schema, raw: RawParams): z.output<Schema> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const parameter = issue?.path.map(String).join('.') || 'query';
  throw new InvalidParameterError(parameter, issue?.message ?? 'is not valid');
}
