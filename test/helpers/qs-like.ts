/**
 * A project laid out like the npm library `qs` where a new user tried bestof: its code in `lib/`,
 * `npm test` = nyc over tape, about 1,700 assertions, and a bug planted in `decode()` (a `+` is
 * not read as a space). What makes it hard for a tool is its output: tape prints every assertion,
 * so the one `not ok` sits far above the end, and nyc ends the output with its coverage table and
 * writes its cache into `node_modules/.cache/nyc`, which is a linked, read-only folder in the
 * sandbox unless the checks get a layer of their own over it.
 *
 * tape and nyc are not installed from npm (the tests run offline): `node_modules` holds two small
 * programs that print what they print (tape's TAP with its YAML block; nyc's cache write, with the
 * error it logs when it cannot, and its table), and the user's `node_modules` is linked into each
 * worktree with `[setup] link`, as the README says to.
 */
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { TempRepo } from './temp-repo.js';

/** The planted bug and its fix, for agents that edit the file. */
export const QS_BUG = "replace(/\\+/g, '+')";
export const QS_FIX = "replace(/\\+/g, ' ')";

const UTILS = `'use strict';
/** Decodes a query string component: '+' is a space, then percent-escapes. */
exports.decode = function (str) {
  var strWithoutPlus = str.${QS_BUG};
  try {
    return decodeURIComponent(strWithoutPlus);
  } catch (e) {
    return strWithoutPlus;
  }
};
exports.encode = function (str) {
  return encodeURIComponent(str);
};
`;

const INDEX = `'use strict';
var utils = require('./utils');
exports.parse = function (qs) {
  var out = {};
  qs.split('&').filter(Boolean).forEach(function (pair) {
    var at = pair.indexOf('=');
    out[utils.decode(at < 0 ? pair : pair.slice(0, at))] = at < 0 ? '' : utils.decode(pair.slice(at + 1));
  });
  return out;
};
exports.stringify = function (obj) {
  return Object.keys(obj).map(function (k) { return utils.encode(k) + '=' + utils.encode(obj[k]); }).join('&');
};
`;

/** Many passing assertions (round trips), and a decode test in the middle whose second assertion fails on the bug. */
const TESTS = `'use strict';
var test = require('tape');
var qs = require('../lib');
var utils = require('../lib/utils');

for (var i = 0; i < 40; i++) {
  test('stringify round trip ' + i, function (t) {
    for (var j = 0; j < 20; j++) {
      var obj = {};
      obj['k' + j] = 'v' + i + '-' + j;
      t.deepEqual(qs.parse(qs.stringify(obj)), obj, 'round trip ' + j);
    }
    t.end();
  });
}

test('decode', function (t) {
  t.equal(utils.decode('a%20b'), 'a b', 'decodes percent escapes');
  t.equal(utils.decode('a+b'), 'a b', 'decodes + as a space');
  t.end();
});

for (var m = 0; m < 40; m++) {
  test('parse keys ' + m, function (t) {
    for (var n = 0; n < 20; n++) {
      t.equal(qs.parse('x' + n + '=' + n)['x' + n], String(n));
    }
    t.end();
  });
}
`;

/** A small tape: the same TAP, the same YAML block under a failure, the same summary, exit 1 on a failure. */
const TAPE = `'use strict';
var tests = [];
var count = 0;
var failed = 0;
function Test(name) { this.name = name; }
Test.prototype.equal = function (actual, expected, msg) { this._assert(actual === expected, actual, expected, msg || 'should be strictly equal', 'equal'); };
Test.prototype.deepEqual = function (actual, expected, msg) {
  this._assert(JSON.stringify(actual) === JSON.stringify(expected), actual, expected, msg || 'should be deeply equivalent', 'deepEqual');
};
Test.prototype._assert = function (ok, actual, expected, msg, operator) {
  count++;
  if (ok) { console.log('ok ' + count + ' ' + msg); return; }
  failed++;
  var stack = new Error(msg).stack.split('\\n');
  console.log('not ok ' + count + ' ' + msg);
  console.log('  ---');
  console.log('    operator: ' + operator);
  console.log('    expected: ' + JSON.stringify(expected).replace(/"/g, "'"));
  console.log('    actual:   ' + JSON.stringify(actual).replace(/"/g, "'"));
  console.log('    at: ' + stack[3].trim().replace(/^at /, ''));
  console.log('    stack: |-');
  stack.forEach(function (line) { console.log('      ' + line.trim()); });
  console.log('  ...');
};
Test.prototype.end = function () {};
module.exports = function (name, fn) { tests.push({ name: name, fn: fn }); };
process.nextTick(function () {
  console.log('TAP version 13');
  tests.forEach(function (t) { console.log('# ' + t.name); t.fn(new Test(t.name)); });
  console.log('');
  console.log('1..' + count);
  console.log('# tests ' + count);
  console.log('# pass  ' + (count - failed));
  if (failed > 0) console.log('# fail  ' + failed); else console.log('\\n# ok');
  process.exitCode = failed > 0 ? 1 : 0;
});
`;

const TAPE_BIN = `#!/usr/bin/env node
'use strict';
var path = require('path');
var fs = require('fs');
process.argv.slice(2).forEach(function (pattern) {
  var dir = path.dirname(pattern);
  var re = new RegExp('^' + path.basename(pattern).replace(/\\./g, '\\\\.').replace(/\\*/g, '.*') + '$');
  fs.readdirSync(dir).filter(function (f) { return re.test(f); }).sort().forEach(function (f) { require(path.resolve(dir, f)); });
});
`;

/**
 * A small nyc: writes its cache where nyc does (logging the error it meets, as nyc does, once per
 * file it would instrument), runs the tests, then prints its coverage table, the output's last lines.
 */
const NYC_BIN = `#!/usr/bin/env node
'use strict';
var fs = require('fs');
var path = require('path');
var spawnSync = require('child_process').spawnSync;
var cache = path.join(process.cwd(), 'node_modules', '.cache', 'nyc');
['lib/index.js', 'lib/utils.js'].forEach(function (file) {
  try {
    fs.mkdirSync(cache, { recursive: true });
    fs.writeFileSync(path.join(cache, file.replace(/\\W/g, '_') + '.json'), '{}');
  } catch (error) {
    console.error(error.stack);
  }
});
var run = spawnSync(process.argv[2], process.argv.slice(3), { stdio: 'inherit' });
var rule = '-----------|---------|----------|---------|---------|-------------------';
console.log(rule);
console.log('File       | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s ');
console.log(rule);
console.log('All files  |   96.15 |    83.33 |     100 |   96.15 |                   ');
console.log(' index.js  |     100 |      100 |     100 |     100 |                   ');
console.log(' utils.js  |   88.89 |       50 |     100 |   88.89 | 7                 ');
console.log(rule);
process.exit(run.status === null ? 1 : run.status);
`;

/** Lays the project into `repo` (committed) and its untracked, ignored node_modules. */
export function layQsLikeProject(repo: TempRepo): void {
  repo.write('lib/utils.js', UTILS);
  repo.write('lib/index.js', INDEX);
  repo.write('test/index.js', TESTS);
  repo.write('package.json', `${JSON.stringify({ name: 'qs-like', version: '1.0.0', private: true, scripts: { test: 'nyc tape "test/*.js"' } }, null, 2)}\n`);
  repo.write('.gitignore', 'node_modules\n');
  repo.commitAll('qs-like: lib, tape tests under nyc');
  repo.write('node_modules/tape/package.json', JSON.stringify({ name: 'tape', main: 'index.js' }));
  repo.write('node_modules/tape/index.js', TAPE);
  repo.write('node_modules/.bin/tape', TAPE_BIN);
  repo.write('node_modules/.bin/nyc', NYC_BIN);
  chmodSync(join(repo.dir, 'node_modules/.bin/tape'), 0o755);
  chmodSync(join(repo.dir, 'node_modules/.bin/nyc'), 0o755);
}
