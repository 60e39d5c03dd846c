/**
 * What the engine's front ends may know of a provider kind, read from the provider table
 * (src/providers/table.ts): the UI imports the engine, never src/providers, and asks here
 * instead of testing a kind by name.
 */
export { isAttachable, reportsCost } from '../../providers/definitions.js';
