#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm install` through `prepare`).
import('../dist/cli/main.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js')) {
    console.error('bestof: the build is missing (dist/). Run `npm install` (or `npm run build`) in the bestof folder.');
    process.exit(2);
  }
  throw error;
});
