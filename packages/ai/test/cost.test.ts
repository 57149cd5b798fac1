import { expect, test } from "bun:test";
import { calculateCost, emptyUsage, totalTokens } from "../src/index.ts";

test("cost is tokens times price per million, stored on the usage", () => {
  const usage = {
    ...emptyUsage(),
    input: 2_000_000,
    output: 500_000,
    cacheRead: 1_000_000,
    cacheWrite: 100_000,
  };
  const cost = calculateCost({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, usage);
  expect(cost.input).toBeCloseTo(6);
  expect(cost.output).toBeCloseTo(7.5);
  expect(cost.cacheRead).toBeCloseTo(0.3);
  expect(cost.cacheWrite).toBeCloseTo(0.375);
  expect(cost.total).toBeCloseTo(14.175);
  expect(usage.cost).toBe(cost);
});

test("totalTokens falls back to the sum when the field is absent", () => {
  const usage = { ...emptyUsage(), input: 1, output: 2, cacheRead: 3, cacheWrite: 4 };
  delete usage.totalTokens;
  expect(totalTokens(usage)).toBe(10);
});
