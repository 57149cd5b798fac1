import { beforeAll, describe, expect, test } from "bun:test";
import {
  CONTENT_SECURITY_POLICY,
  embeddedAssetsModule,
  loadWebAssets,
  type WebAssets,
  webClientResponse,
} from "../src/server/index.ts";

let assets: WebAssets;
beforeAll(async () => {
  assets = await loadWebAssets();
});

function get(path: string, method = "GET"): Response | undefined {
  return webClientResponse(assets, new Request(`http://127.0.0.1:4000${path}`, { method }));
}

describe("the built web client", () => {
  test("is one page, one script and one stylesheet, each named by the page", () => {
    const names = Object.keys(assets.files).sort();
    expect(names).toHaveLength(3);
    const page = assets.files["/"]!.body;
    for (const name of names.filter((name) => name !== "/")) expect(page).toContain(`.${name}`);
    expect(names.some((name) => name.endsWith(".js"))).toBe(true);
    expect(names.some((name) => name.endsWith(".css"))).toBe(true);
  });

  test("names nothing outside its own origin to load", () => {
    const page = assets.files["/"]!.body;
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    const css = Object.entries(assets.files).find(([name]) => name.endsWith(".css"))![1].body;
    expect(css).not.toMatch(/url\(/);
    expect(css).not.toMatch(/@import/);
    const js = Object.entries(assets.files).find(([name]) => name.endsWith(".js"))![1].body;
    // the only network use is the page's own WebSocket; no fetch, no script or worker loading
    expect(js).not.toMatch(/\bfetch\(|importScripts|new Worker/);
  });
});

describe("webClientResponse", () => {
  test("serves the page at / with a strict policy, never cached", async () => {
    const response = get("/")!;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(response.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await response.text()).toContain("<title>KnightCode</title>");
  });

  test("serves the hashed script as JavaScript, cached for good", async () => {
    const script = Object.keys(assets.files).find((name) => name.endsWith(".js"))!;
    const response = get(script)!;
    expect(response.headers.get("content-type")).toContain("javascript");
    expect(response.headers.get("cache-control")).toContain("immutable");
    expect((await response.text()).length).toBeGreaterThan(1000);
  });

  test("HEAD answers headers only; other paths and methods are the listener's", async () => {
    const head = get("/", "HEAD")!;
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(get("/nope.js")).toBeUndefined();
    expect(get("/", "POST")).toBeUndefined();
  });

  test("the binary's embedded module gives back the very same files", async () => {
    const source = embeddedAssetsModule(assets);
    const url = `data:text/javascript;base64,${Buffer.from(source).toString("base64")}`;
    const embedded = (await import(url)) as { loadWebAssets(): Promise<WebAssets> };
    expect(await embedded.loadWebAssets()).toEqual(assets);
  });
});
