/** The library's version, as in its package.json (a unit test keeps them equal). */
export const CLIENT_VERSION = '0.2.0';

/** The `User-Agent` product token (an HTTP token cannot hold `@` or `/`, so not the package name itself). */
export const USER_AGENT = `market-data-alerts-client/${CLIENT_VERSION}`;
