/**
 * A preload that records every module a Node process loads, for the startup benchmark
 * (scripts/bench-startup.mjs) and test/binary/startup-imports.test.ts. Nothing in bestof itself
 * knows about it:
 *
 *   BESTOF_MODULE_LIST=/tmp/out.json NODE_OPTIONS="--import=/abs/scripts/list-modules.mjs" bestof ls
 *
 * writes { "modules": [url, ...] } to /tmp/out.json when the process exits.
 *
 * How: ES modules through a `load` hook (module.register, Node 20.6+), which runs on the hooks
 * thread and posts each URL to a MessagePort before the module is evaluated; at exit the main
 * thread drains that port synchronously (receiveMessageOnPort), so no load is missed even on
 * process.exit. CommonJS files loaded by require() (react, for example, is CommonJS below its
 * entry) do not pass the ES hooks on Node 20, so require.cache is added at exit.
 *
 * The env var and this file's `--import` in NODE_OPTIONS are removed on start, so node children of
 * the process (agents, checks, fake CLIs) neither load it nor overwrite the file: in the checks'
 * sandbox a checkout under /tmp is not even visible, and a check's `node` could not start.
 */
import { writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';

const out = process.env.BESTOF_MODULE_LIST;
delete process.env.BESTOF_MODULE_LIST;
const otherOptions = (process.env.NODE_OPTIONS ?? '').split(/\s+/).filter((option) => option !== '' && !option.endsWith('list-modules.mjs'));
if (otherOptions.length > 0) process.env.NODE_OPTIONS = otherOptions.join(' ');
else delete process.env.NODE_OPTIONS;

if (out) {
  const { port1, port2 } = new MessageChannel();
  port1.unref();
  const hooks = `export async function initialize({ port }) { globalThis.port = port; }
export async function load(url, context, next) { globalThis.port.postMessage(url); return next(url, context); }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });

  process.on('exit', () => {
    const urls = new Set();
    for (let message = receiveMessageOnPort(port1); message; message = receiveMessageOnPort(port1)) urls.add(message.message);
    for (const file of Object.keys(createRequire(import.meta.url).cache)) urls.add(pathToFileURL(file).href);
    // node:* builtins are part of Node, not of the startup cost being measured.
    const modules = [...urls].filter((url) => !url.startsWith('node:') && !url.startsWith('data:'));
    writeFileSync(out, `${JSON.stringify({ modules }, null, 1)}\n`);
  });
}
