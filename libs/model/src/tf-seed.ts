// tfjs's random ops (randomNormal, randomUniform, ...) take a numeric seed but treat 0 as none (`seed ? seed :
// Math.random()`), so the default seed 0 gave a different draw every run. They seed their generator with the seed's
// string; passing that string makes seed 0 a seed like any other and leaves every other seed's draw as it was.

/** `seed` as tfjs's random ops must get it for seed 0 to be reproducible. */
export function tfSeed(seed: number): number {
  return String(seed) as unknown as number;
}
