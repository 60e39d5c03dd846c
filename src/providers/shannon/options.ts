/**
 * What the shannon provider is made with, in a module of its own: the provider (./provider.ts) and
 * the record of its turns (./turn-record.ts) both read it without importing each other.
 */
import type { ProviderSettings, Spec } from '../../spec/schema.js';
import type { PriceTable } from '../prices.js';

/** The spec's `[shannon]` section. */
export type ShannonSection = Spec['shannon'];

export interface ShannonOptions {
  /** Absolute path of Claude Code. */
  readonly binary: string;
  readonly settings: ProviderSettings;
  readonly section: ShannonSection;
  /** `[providers.shannon.prices]`: to estimate the cost of a turn whose Stop is held (Claude Code writes its cost only when a turn really ends). */
  readonly prices?: PriceTable | undefined;
}
