#!/usr/bin/env node
/**
 * How fast can every candidate's worktree get a Node repo's dependencies? Each way of providing
 * `node_modules` timed side by side in the same run.
 *
 *   node scripts/bench-setup.mjs [--mb 250] [--candidates 4] [--rounds 3] [--keep]
 *
 * In a temp folder: a git repo with a package.json, a package-lock.json and a synthetic
 * `node_modules` of about `--mb` MB (ignored by .gitignore): scoped and unscoped packages, each a
 * package.json, an entry file and nested folders of small files (sizes drawn from a spread like a
 * real tree's: most files under 8 KB, a few of 50-200 KB). Then `--rounds` rounds; in each, for
 * every way below (their order rotated from one round to the next, so none always runs first on
 * cold caches), `--candidates` new worktrees (`git worktree add`, not timed) get their
 * dependencies at the same time, as a run's candidates do, and that is timed:
 *
 *   setup.copy        what `[setup] copy = ["node_modules"]` does: Node's fs.cp, recursive
 *   cp --reflink=auto `cp -a --reflink=auto`: a copy-on-write clone where the file system has one
 *                     (btrfs, XFS with reflink, APFS); a plain copy elsewhere (ext4, tmpfs)
 *   setup.link        what `[setup] link = ["node_modules"]` does: one symlink to the repo's folder
 *   npm ci --offline  an install per worktree from a shared npm cache (`--cache`), filled once
 *                     before the rounds from local tarballs of the same packages (no registry)
 *
 * After each way, every worktree must resolve a package (`node -e require(...)`) or the way fails.
 * The summary: each way's median time over the rounds and its ratio to the fastest way's median.
 * The file system of the temp folder is printed: on ext4 the reflink copy is a plain copy.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './lib/paired.mjs';

const options = parseArgs(process.argv.slice(2));
const root = await mkdtemp(join(tmpdir(), 'bestof-bench-setup-'));
const repo = join(root, 'repo');
const tarballs = join(root, 'tarballs');
const npmCache = join(root, 'npm-cache');

try {
  const fsType = fileSystemName(root);
  console.log(`temp folder ${root} (${fsType})`);
  const made = await makeRepo(options.mb);
  console.log(`node_modules: ${made.packages} packages, ${made.files} files, ${(made.bytes / 1024 ** 2).toFixed(0)} MB`);
  const cacheReady = await fillNpmCache(made.packageList);
  const ways = {
    'setup.copy': (worktree) => cp(join(repo, 'node_modules'), join(worktree, 'node_modules'), { recursive: true, force: true }),
    'cp --reflink=auto': (worktree) => run('cp', ['-a', '--reflink=auto', join(repo, 'node_modules'), join(worktree, 'node_modules')], repo),
    'setup.link': (worktree) => symlink(join(repo, 'node_modules'), join(worktree, 'node_modules'), 'dir'),
    ...(cacheReady.ok
      ? {
          'npm ci --offline': (worktree) =>
            run('npm', ['ci', '--offline', '--cache', npmCache, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], worktree),
        }
      : {}),
  };
  if (!cacheReady.ok) console.log(`npm ci --offline: not measured: ${cacheReady.why}`);
  const names = Object.keys(ways);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 1; round <= options.rounds; round++) {
    const order = names.map((_, i) => names[(i + round - 1) % names.length]);
    const line = [];
    for (const name of order) {
      const worktrees = [];
      for (let c = 1; c <= options.candidates; c++) {
        const worktree = join(root, 'worktrees', `r${round}-${slug(name)}-c${c}`);
        execFileSync('git', ['worktree', 'add', '--quiet', '-b', `bench/r${round}/${slug(name)}/c${c}`, worktree, 'HEAD'], { cwd: repo });
        worktrees.push(worktree);
      }
      const started = process.hrtime.bigint();
      await Promise.all(worktrees.map((worktree) => ways[name](worktree)));
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      for (const worktree of worktrees) execFileSync(process.execPath, ['-e', `require.resolve('${made.probe}')`], { cwd: worktree });
      times[name].push(ms);
      line.push(`${name} ${seconds(ms)}`);
      for (const worktree of worktrees) {
        await rm(worktree, { recursive: true, force: true });
      }
      execFileSync('git', ['worktree', 'prune'], { cwd: repo });
    }
    console.log(`round ${round}: ${line.join(', ')}`);
  }
  const medians = names.map((name) => ({ name, ms: median(times[name]) }));
  const fastest = Math.min(...medians.map((m) => m.ms));
  console.log(`\n${options.candidates} candidates, ${options.rounds} rounds, ${(made.bytes / 1024 ** 2).toFixed(0)} MB node_modules, ${fsType}:`);
  for (const { name, ms } of medians.sort((a, b) => a.ms - b.ms)) {
    console.log(`  ${name.padEnd(18)} median ${seconds(ms).padStart(8)}   ${(ms / fastest).toFixed(1).padStart(7)}x the fastest`);
  }
  if (fsType === 'ext4' || fsType === 'tmpfs') console.log(`  (on ${fsType} there is no copy-on-write: cp --reflink=auto makes a plain copy)`);
} finally {
  if (!options.keep) await rm(root, { recursive: true, force: true });
  else console.log(`kept ${root}`);
}

/** The repo and its synthetic node_modules; also one tarball per package, for the npm cache. */
async function makeRepo(mb) {
  await mkdir(repo, { recursive: true });
  await mkdir(tarballs, { recursive: true });
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'user.name', 'Bench');
  git('config', 'user.email', 'bench@example.com');
  git('config', 'gc.auto', '0');
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  // Most files of a real node_modules are small; a few (bundles, maps) are large.
  const fileSize = () => {
    const r = random();
    return r < 0.6
      ? 200 + Math.floor(random() * 2000)
      : r < 0.9
        ? 2000 + Math.floor(random() * 6000)
        : r < 0.98
          ? 8000 + Math.floor(random() * 40_000)
          : 50_000 + Math.floor(random() * 150_000);
  };
  const target = mb * 1024 ** 2;
  let bytes = 0;
  let files = 0;
  const packageList = [];
  const lockPackages = { '': { name: 'bench-app', version: '1.0.0', dependencies: {} } };
  for (let p = 0; bytes < target; p++) {
    const name = p % 5 === 0 ? `@scope${p % 7}/pkg-${p}` : `pkg-${p}`;
    const dir = join(repo, 'node_modules', name);
    const pkgFiles = {
      'package.json': JSON.stringify({ name, version: '1.0.0', main: 'index.js' }, null, 2),
      'index.js': `module.exports = ${JSON.stringify(name)};\n`,
    };
    const count = 10 + Math.floor(random() * 40);
    for (let f = 0; f < count; f++) {
      const depth = Math.floor(random() * 4);
      const folder = ['lib', ...Array.from({ length: depth }, (_, d) => `d${d}${Math.floor(random() * 3)}`)].join('/');
      pkgFiles[`${folder}/f${f}.js`] = 'x'.repeat(fileSize());
    }
    for (const [rel, content] of Object.entries(pkgFiles)) {
      await mkdir(join(dir, rel, '..'), { recursive: true });
      await writeFile(join(dir, rel), content);
      bytes += content.length;
      files += 1;
    }
    packageList.push({ name, dir });
    lockPackages[''].dependencies[name] = '1.0.0';
  }
  const pkg = { name: 'bench-app', version: '1.0.0', private: true, dependencies: lockPackages[''].dependencies };
  await writeFile(join(repo, 'package.json'), JSON.stringify(pkg, null, 2));
  await writeFile(join(repo, '.gitignore'), 'node_modules\n');
  // The lock is written once the tarballs exist (it holds their integrity).
  const lock = { name: 'bench-app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: lockPackages };
  for (const { name, dir } of packageList) {
    const file = join(tarballs, `${slug(name)}-1.0.0.tgz`);
    // npm's tarball layout: everything under package/.
    execFileSync('tar', ['czf', file, '--transform', 's,^\\.,package,', '-C', dir, '.']);
    const integrity = `sha512-${createHash('sha512')
      .update(await readFile(file))
      .digest('base64')}`;
    lock.packages[`node_modules/${name}`] = {
      version: '1.0.0',
      resolved: `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-1.0.0.tgz`,
      integrity,
    };
  }
  await writeFile(join(repo, 'package-lock.json'), JSON.stringify(lock, null, 2));
  git('add', '-A');
  git('commit', '--quiet', '-m', 'bench app');
  return { packages: packageList.length, files, bytes, packageList, probe: packageList[packageList.length - 1].name };
}

/** The shared npm cache, filled from the local tarballs (`npm cache add` of files): no registry is asked. */
async function fillNpmCache(packageList) {
  try {
    const files = packageList.map(({ name }) => join(tarballs, `${slug(name)}-1.0.0.tgz`));
    for (let i = 0; i < files.length; i += 200) await run('npm', ['cache', 'add', '--cache', npmCache, '--offline', ...files.slice(i, i + 200)], root);
    // One install to prove the cache serves the lockfile offline before it is timed.
    const probe = join(root, 'npm-probe');
    await mkdir(probe);
    await cp(join(repo, 'package.json'), join(probe, 'package.json'));
    await cp(join(repo, 'package-lock.json'), join(probe, 'package-lock.json'));
    await run('npm', ['ci', '--offline', '--cache', npmCache, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], probe);
    await rm(probe, { recursive: true, force: true });
    return { ok: true };
  } catch (error) {
    return { ok: false, why: error.message.split('\n').slice(0, 3).join(' | ') };
  }
}

function run(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args[0]} exited ${code}: ${stderr.trim().slice(-500)}`))));
  });
}

function git(...args) {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
}

function fileSystemName(path) {
  try {
    return execFileSync('stat', ['-f', '-c', '%T', path], { encoding: 'utf8' })
      .trim()
      .replace(/^ext2\/ext3$/, 'ext4');
  } catch {
    return 'unknown file system';
  }
}

function slug(name) {
  return name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+/, '');
}

function seconds(ms) {
  return ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function parseArgs(argv) {
  const out = { mb: 250, candidates: 4, rounds: 3, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--keep') out.keep = true;
    else if (['--mb', '--candidates', '--rounds'].includes(arg)) {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 1) throw new Error(`${arg}: expected a whole number of at least 1, got ${argv[i]}`);
      out[arg.slice(2)] = value;
    } else throw new Error(`unknown option ${arg}; options: --mb N --candidates N --rounds N --keep`);
  }
  return out;
}
