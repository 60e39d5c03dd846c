/** What a shannon provider is made with: apart from ./provider.ts so that ./turn-record.ts can name it without importing the provider back. */
import type { ProviderSettings, Spec } from '../../spec/schema.js';
import type { PriceTable } from '../prices.js';

export type ShannonSection = Spec['shannon'];

export interface ShannonOptions {
  /** Absolute path of Claude Code. */
  readonly binary: string;
  readonly settings: ProviderSettings;
  readonly section: ShannonSection;
  /** `[providers.shannon.prices]`: to estimate the cost of a turn whose Stop is held (Claude Code writes its cost only when a turn really ends). */
  readonly prices?: PriceTable | undefined;
}
