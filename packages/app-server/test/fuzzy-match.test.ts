import { describe, expect, test } from "bun:test";
import { fuzzyMatch, normalizeQuery, rankPaths } from "../src/fuzzy-match.ts";

describe("fuzzy matching", () => {
  test("matched indices point at the query's characters in order", () => {
    const m = fuzzyMatch("src/config/settings.ts", normalizeQuery("cfgset"))!;
    expect(m.indices.map((i) => "src/config/settings.ts"[i]).join("")).toBe("cfgset");
    expect(m.indices).toEqual([...m.indices].sort((a, b) => a - b));
  });

  test("a path missing a query character does not match", () => {
    expect(fuzzyMatch("src/index.ts", normalizeQuery("xyz"))).toBeUndefined();
  });

  test("matching ignores case and whitespace in the query", () => {
    expect(fuzzyMatch("README.md", normalizeQuery("read me"))).toBeDefined();
  });

  test("segment starts and contiguous runs outrank scattered matches", () => {
    const ranked = rankPaths(["a/x_c_o_n_f_i_g.ts", "src/config.ts", "cxoxnxfxixg.ts"], "config", 10);
    expect(ranked[0]!.path).toBe("src/config.ts");
  });

  test("the file name beats the same letters in a directory", () => {
    const ranked = rankPaths(["server/main/x.ts", "lib/server.ts"], "server", 10);
    expect(ranked[0]!.path).toBe("lib/server.ts");
  });

  test("the limit keeps the best matches in order", () => {
    const paths = Array.from({ length: 500 }, (_, i) => `dir${i}/file${i}.ts`);
    paths.push("file.ts");
    const ranked = rankPaths(paths, "file", 5);
    expect(ranked.length).toBe(5);
    expect(ranked[0]!.path).toBe("file.ts");
    for (let i = 1; i < ranked.length; i++) {
      expect(ranked[i - 1]!.score).toBeGreaterThanOrEqual(ranked[i]!.score);
    }
    const all = rankPaths(paths, "file", 1000);
    expect(ranked).toEqual(all.slice(0, 5));
  });

  test("the tightest window is chosen: indices sit in the file name, not scattered earlier", () => {
    const m = fuzzyMatch("a/b/c/abc.ts", normalizeQuery("abc"))!;
    expect(m.indices).toEqual([6, 7, 8]);
  });
});
