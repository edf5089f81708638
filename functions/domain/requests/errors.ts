import { defaultMessage, type ErrorCode } from '#contracts/errors';

/** A failure the caller caused or may see; `code` selects the HTTP status in contracts/errors. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string = defaultMessage(code),
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class UnknownSymbolError extends ServiceError {
  constructor(readonly symbol: string) {
    super('unknown_symbol');
  }
}

export class MissingSymbolsError extends ServiceError {
  constructor() {
    super('missing_symbols');
  }
}

/** A query parameter that is not of its documented form; the message names the parameter. */
export class InvalidParameterError extends ServiceError {
  constructor(
    readonly parameter: string,
    detail: string,
  ) {
    super('invalid_parameter', `invalid parameter: ${parameter} ${detail}`);
  }
}

/** An interval the service does not know (docs/partner-guide.md#candles); answered 404 with no body. */
export class UnknownIntervalError extends ServiceError {
  constructor(readonly interval: string) {
    super('unknown_interval');
  }
}
