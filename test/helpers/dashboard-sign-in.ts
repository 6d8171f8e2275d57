import { DEMO_USER } from './demo.js';
import { csrfTokenOf } from './html.js';

/**
 * What the proxy in front of a hosted sandbox adds: the browser came over https. With an https
 * PUBLIC_URL the sandbox sends its (Secure) session cookie only then; over plain http it is harmless.
 */
export const BEHIND_HTTPS_PROXY = { 'x-forwarded-proto': 'https' } as const;

/** A browser's dashboard sign-in with fetch (behind an https proxy): the session cookie, and the signed-in page's HTML (as sent, escaped). */
export async function signInToDashboard(
  baseUrl: string,
  credentials: { email: string; password: string } = DEMO_USER,
): Promise<{ cookie: string; page: string }> {
  const form = await fetch(`${baseUrl}/`, { headers: BEHIND_HTTPS_PROXY });
  const formCookie = form.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = csrfTokenOf(await form.text());
  const signedIn = await fetch(`${baseUrl}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...BEHIND_HTTPS_PROXY, cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf_token: csrf, ...credentials }),
  });
  if (signedIn.status !== 303) throw new Error(`the dashboard sign-in answered ${signedIn.status}, not 303`);
  const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
  const page = await (await fetch(`${baseUrl}/`, { headers: { ...BEHIND_HTTPS_PROXY, cookie } })).text();
  return { cookie, page };
}
