import { type ConsoleConfig, fetchDemoKey } from './config.ts';
import { createClient, MarketDataError } from './data.ts';
import { byId } from './dom.ts';

/** The key lives in this tab's session storage only (docs/console.md#the-api-key), never in a URL. */
const STORAGE_KEY = 'market-data-alerts.api-key';

export const storedKey = (): string | undefined => sessionStorage.getItem(STORAGE_KEY) ?? undefined;
export const forgetKey = (): void => sessionStorage.removeItem(STORAGE_KEY);

/** Checks a key with a cheap call; resolves with a message when the service refuses it. */
async function refusal(config: ConsoleConfig, apiKey: string): Promise<string | undefined> {
  try {
    await createClient({ baseUrl: config.restBaseUrl, apiKey }).getMarketStatus();
    return undefined;
  } catch (error) {
    if (error instanceof MarketDataError)
      return `The service refused this key: ${error.code} (${error.status}).`;
    return `The service did not answer: ${error instanceof Error ? error.message : String(error)}.`;
  }
}

/** Asks for a key (the stored one first), checks it, stores it; resolves with the accepted key. */
export async function askForKey(config: ConsoleConfig): Promise<string> {
  const saved = storedKey();
  if (saved && (await refusal(config, saved)) === undefined) return saved;
  forgetKey();

  const dialog = byId<HTMLDialogElement>('key-dialog');
  const form = byId<HTMLFormElement>('key-form');
  const input = byId<HTMLInputElement>('key-input');
  const error = byId('key-error');
  const demoButton = byId<HTMLButtonElement>('demo-key');
  const demoKey = await fetchDemoKey(config);
  demoButton.hidden = demoKey === undefined;
  dialog.showModal();
  input.focus();

  return new Promise((resolve) => {
    const attempt = async (key: string) => {
      error.textContent = '';
      const refused = key ? await refusal(config, key) : 'Enter a key.';
      if (refused) {
        error.textContent = refused;
        input.focus();
        return;
      }
      sessionStorage.setItem(STORAGE_KEY, key);
      input.value = '';
      dialog.close();
      resolve(key);
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void attempt(input.value.trim());
    });
    demoButton.addEventListener('click', () => {
      if (demoKey) void attempt(demoKey);
    });
    // The console needs a key: Escape does not dismiss the dialog.
    dialog.addEventListener('cancel', (event) => event.preventDefault());
  });
}
