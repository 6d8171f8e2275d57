/** The URL without its password, for logs and health reasons. */
export function describeRedisUrl(url: string): string {
  if (!URL.canParse(url)) return 'Redis';
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '****';
  return parsed.toString().replace(/\/$/, '');
}
