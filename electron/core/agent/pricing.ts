/**
 * What a model's tokens cost, where the price is known: a small, dated table
 * of list prices in US dollars per million tokens, matched by model-name
 * prefix (the longest prefix wins, so `gpt-4o-mini` is not priced as
 * `gpt-4o`). Prices change: costs are estimates, shown with the table's date,
 * and a model not in the table shows tokens only, never a guessed cost.
 */
import type { UsageView } from '../../../shared/chat';

/** When the table below was taken from the providers' published price pages. */
export const PRICES_CHECKED_ON = '2025-11-20';

interface Price {
  /** USD per million input tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
}

/** Model-name prefix → list price. Only Anthropic's and OpenAI's own models; local models cost nothing here. */
const PRICES: ReadonlyArray<readonly [prefix: string, price: Price]> = [
  ['claude-opus-4-5', { input: 5, output: 25 }],
  ['claude-opus-4', { input: 15, output: 75 }],
  ['claude-sonnet-4', { input: 3, output: 15 }],
  ['claude-3-7-sonnet', { input: 3, output: 15 }],
  ['claude-3-5-sonnet', { input: 3, output: 15 }],
  ['claude-haiku-4-5', { input: 1, output: 5 }],
  ['claude-3-5-haiku', { input: 0.8, output: 4 }],
  ['claude-3-haiku', { input: 0.25, output: 1.25 }],
  ['gpt-5-nano', { input: 0.05, output: 0.4 }],
  ['gpt-5-mini', { input: 0.25, output: 2 }],
  ['gpt-5', { input: 1.25, output: 10 }],
  ['gpt-4.1-nano', { input: 0.1, output: 0.4 }],
  ['gpt-4.1-mini', { input: 0.4, output: 1.6 }],
  ['gpt-4.1', { input: 2, output: 8 }],
  ['gpt-4o-mini', { input: 0.15, output: 0.6 }],
  ['gpt-4o', { input: 2.5, output: 10 }],
  ['o4-mini', { input: 1.1, output: 4.4 }],
  ['o3-mini', { input: 1.1, output: 4.4 }],
  ['o3', { input: 2, output: 8 }],
];

/** The list price of a model of a provider kind, or undefined when Airlock does not know it. */
export function priceOf(kind: string, model: string): Price | undefined {
  // An OpenAI-compatible endpoint may serve anything under any name (a local model called "gpt-4o"): no price.
  if (kind !== 'anthropic' && kind !== 'openai') return undefined;
  const name = model.toLowerCase();
  let best: readonly [string, Price] | undefined;
  for (const entry of PRICES) {
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1];
}

/** Usage with its estimated cost (when the price is known). */
export function withCost(kind: string, model: string, usage: { inputTokens: number; outputTokens: number }): UsageView {
  const price = priceOf(kind, model);
  const base = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
  if (!price) return base;
  return { ...base, costUsd: (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000 };
}

/** Adds usages; the sum has a cost only if every part had one. */
export function sumUsage(usages: readonly UsageView[]): UsageView {
  let inputTokens = 0;
  let outputTokens = 0;
  let cost = 0;
  let priced = true;
  for (const usage of usages) {
    inputTokens += usage.inputTokens;
    outputTokens += usage.outputTokens;
    if (usage.costUsd === undefined) priced = false;
    else cost += usage.costUsd;
  }
  return { inputTokens, outputTokens, ...(priced && usages.length > 0 ? { costUsd: cost } : {}) };
}
