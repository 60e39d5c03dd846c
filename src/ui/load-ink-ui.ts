/**
 * Loads an Ink front end (Ink, React and our components): the run's dashboard or the bench's view.
 * React chooses its development or production build when it is first loaded, from NODE_ENV; the
 * development build checks and measures every render and costs several times the CPU, so the UI
 * is loaded with NODE_ENV set to production and the variable is put back at once: agents and check
 * commands inherit bestof's environment, and their NODE_ENV is the user's business.
 *
 * These two import()s are the only way from the core to Ink. In the build (scripts/bundle.mjs) the
 * front ends are ES modules and the core is CommonJS, and this file is a chunk of its own, so that
 * no other chunk of the core holds an import() (bin/compile-cache.js caches those, and leaves to
 * Node a file that holds one).
 */
export async function loadInkUi(): Promise<typeof import('./start-ui.js')> {
  return withProductionReact(() => import('./start-ui.js'));
}

/** The bench's view (`bestof bench` on a terminal), loaded as loadInkUi loads the run's dashboard. */
export async function loadBenchUi(): Promise<typeof import('./bench/start-bench-ui.js')> {
  return withProductionReact(() => import('./bench/start-bench-ui.js'));
}

/** Runs `load` (an `import()` of a module that reaches React) with NODE_ENV=production, then puts NODE_ENV back. */
export async function withProductionReact<T>(load: () => Promise<T>): Promise<T> {
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    return await load();
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}
