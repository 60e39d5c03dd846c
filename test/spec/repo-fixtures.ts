/**
 * Tiny real repos of each kind (Node, Python, Rust, Go, Makefile), for `bestof init` and its
 * probe: each one's tests pass with the command init should find, and hold test files where
 * init should freeze them.
 */
export type FixtureKind = 'node' | 'python' | 'rust' | 'go' | 'make' | 'bare';

export const REPO_FIXTURES: Record<FixtureKind, Record<string, string>> = {
  node: {
    'package.json': JSON.stringify(
      { name: 'fixture', version: '1.0.0', scripts: { test: 'node --test test/*.test.js', lint: 'node --check src/add.js' } },
      null,
      2,
    ),
    'src/add.js': 'exports.add = (a, b) => a + b;\n',
    'test/add.test.js':
      "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\ntest('adds', () => assert.equal(add(1, 2), 3));\n",
    '.gitignore': 'node_modules\n',
  },
  python: {
    'pyproject.toml': '[project]\nname = "fixture"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    'fixture/__init__.py': '',
    'fixture/add.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_add.py': 'from fixture.add import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
  },
  rust: {
    'Cargo.toml': '[package]\nname = "fixture"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    'src/lib.rs': 'pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n',
    'tests/add.rs': '#[test]\nfn adds() {\n    assert_eq!(fixture::add(1, 2), 3);\n}\n',
    '.gitignore': 'target\n',
  },
  go: {
    'go.mod': 'module example.com/fixture\n\ngo 1.19\n',
    'add.go': 'package fixture\n\nfunc Add(a, b int) int { return a + b }\n',
    'add_test.go': 'package fixture\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("1 + 2")\n\t}\n}\n',
  },
  make: {
    Makefile: 'test:\n\tsh tests/run.sh\n',
    'tests/run.sh': 'test "$(cat VERSION)" = 1\n',
    VERSION: '1\n',
  },
  bare: {
    'README.md': '# notes\n',
  },
};
