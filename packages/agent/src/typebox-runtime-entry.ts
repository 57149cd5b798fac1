/**
 * What `scripts/prebuild-typebox.ts` bundles into one file: the two TypeBox modules tool
 * validation uses. Nothing imports this file; `typebox-runtime.ts` loads its bundle.
 */
export { Compile } from "typebox/compile";
export { default as Value } from "typebox/value";
