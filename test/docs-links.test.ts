/**
 * The docs hold together: every relative link of README.md and docs/ leads to a file that exists
 * (and its #anchor to a heading there), every page of docs/ is linked from the README, and no
 * comment or page cites a document outside the repo, which a clone of the project does not have.
 * No page of docs/ names an issue number: what a page says must stand without the tracker.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './helpers/cli.js';

const fromRoot = (path: string): string => relative(PROJECT_ROOT, path).split(sep).join('/');

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : filesUnder(path, keep);
    return keep(path) ? [path] : [];
  });
}

const pages = [join(PROJECT_ROOT, 'README.md'), ...filesUnder(join(PROJECT_ROOT, 'docs'), (path) => path.endsWith('.md'))];

/** The page's text without fenced code blocks and inline code, where a `[x](y)` is no link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Relative link targets of a page: `[text](target)` and `![alt](target)`, web addresses left out. */
export function linksOf(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] as string).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = (m[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function brokenLinks(page: string): string[] {
  const text = readFileSync(page, 'utf8');
  return linksOf(text).flatMap((link) => {
    const [pathPart = '', anchor] = link.split('#', 2);
    const target = pathPart === '' ? page : resolve(dirname(page), decodeURIComponent(pathPart));
    if (!target.startsWith(PROJECT_ROOT) || !existsSync(target)) return [`${fromRoot(page)}: ${link} (no such file)`];
    if (anchor === undefined || anchor === '' || extname(target) !== '.md') return [];
    return anchorsOf(readFileSync(target, 'utf8')).has(anchor) ? [] : [`${fromRoot(page)}: ${link} (no such heading)`];
  });
}

/**
 * Citations of documents that live outside the repo: the design notes and provider formats that
 * were kept beside it, and the machine's own folders. A test's data (a glob `../shared/**` that
 * leaves a repo) is not a citation, so the patterns name documents, not any path.
 */
const OUTSIDE = [
  /\bDESIGN\.md\b/,
  /\bSTYLE\.md\b/,
  /\bprovider-formats\.md\b/,
  /\.\.\/shared\/[\w.-]+\.md\b/,
  /(?<![\w./-])shared\/[\w-]/,
  /(?<![\w.-])briefs\//,
  /\/work\/(?:main|shared|briefs|h-[\w-]+)\b/,
];

/** Where citations are looked for; captured CLI output (`*.log`) and images are data, not text of ours. */
const CITING_FILES = [
  join(PROJECT_ROOT, 'README.md'),
  ...['src', 'test', 'scripts', 'docs'].flatMap((folder) => filesUnder(join(PROJECT_ROOT, folder), (path) => !/\.(log|png|jpe?g|gif)$/i.test(path))),
];

describe('docs', () => {
  it('finds the pages', () => {
    expect(pages.map(fromRoot)).toEqual(expect.arrayContaining(['README.md', 'docs/spec.md', 'docs/design/architecture.md']));
  });

  it('every relative link of README.md and docs/ leads to a file, and its #anchor to a heading', () => {
    expect(pages.flatMap(brokenLinks)).toEqual([]);
  });

  it('every page of docs/ is linked from the README', () => {
    const readme = join(PROJECT_ROOT, 'README.md');
    const linked = new Set(linksOf(readFileSync(readme, 'utf8')).map((link) => resolve(PROJECT_ROOT, link.split('#')[0] ?? '')));
    expect(pages.filter((page) => page !== readme && !linked.has(page)).map(fromRoot)).toEqual([]);
  });

  it('every page the README links to is in the published package (package.json "files"), so that its links work after npm install -g', () => {
    const published = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    const readme = join(PROJECT_ROOT, 'README.md');
    const targets = linksOf(readFileSync(readme, 'utf8')).map((link) => fromRoot(resolve(PROJECT_ROOT, link.split('#')[0] ?? '')));
    expect(targets.filter((target) => target !== 'README.md' && !published.some((entry) => target === entry || target.startsWith(`${entry}/`)))).toEqual([]);
  });

  it('no file of src/, test/, scripts/, docs/ or the README cites a document outside the repo', () => {
    const citations = CITING_FILES.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (OUTSIDE.some((pattern) => pattern.test(line)) ? [`${fromRoot(file)}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(citations).toEqual([]);
  });

  it('no page of docs/ names an issue by its number', () => {
    const numbered = pages
      .filter((page) => fromRoot(page).startsWith('docs/'))
      .flatMap((page) =>
        prose(readFileSync(page, 'utf8'))
          .split('\n')
          .flatMap((line, index) => (/\bissues? #?\d+|(?<![\w&#/])#\d+\b/i.test(line) ? [`${fromRoot(page)}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(numbered).toEqual([]);
  });

  it('reads links and anchors as GitHub does', () => {
    expect(linksOf('see [a](docs/a.md#b), ![i](images/x.png), [w](https://x.org) and `[c](not-a-link)`')).toEqual(['docs/a.md#b', 'images/x.png']);
    expect([...anchorsOf('# The spec\n## `[loop]`\n## The shannon provider (`kind = "shannon"`): in tmux\n## Keys\n## Keys\n')]).toEqual([
      'the-spec',
      'loop',
      'the-shannon-provider-kind--shannon-in-tmux',
      'keys',
      'keys-1',
    ]);
  });
});
