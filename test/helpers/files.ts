/**
 * Files under a folder, and which of a test's secret values a text holds: what the tests that look
 * for a leaked secret in a run folder share.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir`, by its full path (folders walked, other entries left out). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const info = statSync(path);
    return info.isDirectory() ? filesUnder(path) : info.isFile() ? [path] : [];
  });
}

/** The names of the secrets `text` holds (never their values: a failure prints what this returns). */
export function leakedNames(text: string, secrets: Readonly<Record<string, string>>): string[] {
  return Object.entries(secrets).flatMap(([name, value]) => (text.includes(value) ? [name] : []));
}
