/**
 * The languages code blocks are highlighted in, each with the aliases its highlight.js
 * definition declares (a test keeps the two equal). A language's module is required only
 * when a block first uses it; the requires are static so `bun build --compile` bundles
 * them, and a name outside this table is never turned into a module path.
 */

/**
 * The part of highlight.js's API the highlighter uses, declared here: the package's own
 * types pull the DOM library into the whole program.
 */
export interface Hljs {
  newInstance(): Hljs;
  getLanguage(name: string): object | undefined;
  registerLanguage(name: string, definition: LanguageFn): void;
  highlight(
    code: string,
    options: { language: string; ignoreIllegals: boolean },
  ): { value: string; errorRaised?: Error; _top?: object };
}

/** A language module: builds the language's definition (its modes) for an instance. */
export type LanguageFn = (hljs: Hljs) => object;

type Entry = [load: () => LanguageFn, aliases: string[]];

const TABLE: Record<string, Entry> = {
  awk: [() => require("highlight.js/lib/languages/awk"), []],
  bash: [() => require("highlight.js/lib/languages/bash"), ["sh", "zsh"]],
  c: [() => require("highlight.js/lib/languages/c"), ["h"]],
  clojure: [() => require("highlight.js/lib/languages/clojure"), ["clj", "edn"]],
  cmake: [() => require("highlight.js/lib/languages/cmake"), ["cmake.in"]],
  cpp: [() => require("highlight.js/lib/languages/cpp"), ["cc", "c++", "h++", "hpp", "hh", "hxx", "cxx"]],
  csharp: [() => require("highlight.js/lib/languages/csharp"), ["cs", "c#"]],
  css: [() => require("highlight.js/lib/languages/css"), []],
  dart: [() => require("highlight.js/lib/languages/dart"), []],
  diff: [() => require("highlight.js/lib/languages/diff"), ["patch"]],
  dockerfile: [() => require("highlight.js/lib/languages/dockerfile"), ["docker"]],
  dos: [() => require("highlight.js/lib/languages/dos"), ["bat", "batch", "cmd"]],
  elixir: [() => require("highlight.js/lib/languages/elixir"), ["ex", "exs"]],
  elm: [() => require("highlight.js/lib/languages/elm"), []],
  erlang: [() => require("highlight.js/lib/languages/erlang"), ["erl"]],
  fortran: [() => require("highlight.js/lib/languages/fortran"), ["f90", "f95"]],
  fsharp: [() => require("highlight.js/lib/languages/fsharp"), ["fs", "f#"]],
  go: [() => require("highlight.js/lib/languages/go"), ["golang"]],
  gradle: [() => require("highlight.js/lib/languages/gradle"), []],
  graphql: [() => require("highlight.js/lib/languages/graphql"), ["gql"]],
  groovy: [() => require("highlight.js/lib/languages/groovy"), []],
  handlebars: [
    () => require("highlight.js/lib/languages/handlebars"),
    ["hbs", "html.hbs", "html.handlebars", "htmlbars"],
  ],
  haskell: [() => require("highlight.js/lib/languages/haskell"), ["hs"]],
  http: [() => require("highlight.js/lib/languages/http"), ["https"]],
  ini: [() => require("highlight.js/lib/languages/ini"), ["toml"]],
  java: [() => require("highlight.js/lib/languages/java"), ["jsp"]],
  javascript: [() => require("highlight.js/lib/languages/javascript"), ["js", "jsx", "mjs", "cjs"]],
  json: [() => require("highlight.js/lib/languages/json"), ["jsonc", "json5"]],
  julia: [() => require("highlight.js/lib/languages/julia"), []],
  kotlin: [() => require("highlight.js/lib/languages/kotlin"), ["kt", "kts", "ktm", "ktx"]],
  latex: [() => require("highlight.js/lib/languages/latex"), ["tex"]],
  less: [() => require("highlight.js/lib/languages/less"), []],
  lisp: [() => require("highlight.js/lib/languages/lisp"), []],
  llvm: [() => require("highlight.js/lib/languages/llvm"), []],
  lua: [() => require("highlight.js/lib/languages/lua"), ["pluto"]],
  makefile: [() => require("highlight.js/lib/languages/makefile"), ["mk", "mak", "make"]],
  markdown: [() => require("highlight.js/lib/languages/markdown"), ["md", "mkdown", "mkd"]],
  matlab: [() => require("highlight.js/lib/languages/matlab"), []],
  nginx: [() => require("highlight.js/lib/languages/nginx"), ["nginxconf"]],
  nix: [() => require("highlight.js/lib/languages/nix"), ["nixos"]],
  objectivec: [
    () => require("highlight.js/lib/languages/objectivec"),
    ["mm", "objc", "obj-c", "obj-c++", "objective-c++"],
  ],
  ocaml: [() => require("highlight.js/lib/languages/ocaml"), ["ml"]],
  perl: [() => require("highlight.js/lib/languages/perl"), ["pl", "pm"]],
  pgsql: [() => require("highlight.js/lib/languages/pgsql"), ["postgres", "postgresql"]],
  php: [() => require("highlight.js/lib/languages/php"), []],
  "php-template": [() => require("highlight.js/lib/languages/php-template"), []],
  plaintext: [() => require("highlight.js/lib/languages/plaintext"), ["text", "txt"]],
  powershell: [() => require("highlight.js/lib/languages/powershell"), ["pwsh", "ps", "ps1"]],
  properties: [() => require("highlight.js/lib/languages/properties"), []],
  protobuf: [() => require("highlight.js/lib/languages/protobuf"), ["proto"]],
  python: [() => require("highlight.js/lib/languages/python"), ["py", "gyp", "ipython"]],
  "python-repl": [() => require("highlight.js/lib/languages/python-repl"), ["pycon"]],
  r: [() => require("highlight.js/lib/languages/r"), []],
  ruby: [() => require("highlight.js/lib/languages/ruby"), ["rb", "gemspec", "podspec", "thor", "irb"]],
  rust: [() => require("highlight.js/lib/languages/rust"), ["rs"]],
  scala: [() => require("highlight.js/lib/languages/scala"), []],
  scheme: [() => require("highlight.js/lib/languages/scheme"), ["scm"]],
  scss: [() => require("highlight.js/lib/languages/scss"), []],
  shell: [() => require("highlight.js/lib/languages/shell"), ["console", "shellsession"]],
  sql: [() => require("highlight.js/lib/languages/sql"), []],
  swift: [() => require("highlight.js/lib/languages/swift"), []],
  typescript: [() => require("highlight.js/lib/languages/typescript"), ["ts", "tsx", "mts", "cts"]],
  vbnet: [() => require("highlight.js/lib/languages/vbnet"), ["vb"]],
  vim: [() => require("highlight.js/lib/languages/vim"), []],
  wasm: [() => require("highlight.js/lib/languages/wasm"), []],
  x86asm: [() => require("highlight.js/lib/languages/x86asm"), []],
  xml: [
    () => require("highlight.js/lib/languages/xml"),
    ["html", "xhtml", "rss", "atom", "xjb", "xsd", "xsl", "plist", "wsf", "svg"],
  ],
  yaml: [() => require("highlight.js/lib/languages/yaml"), ["yml"]],
};

/** Loads a language's definition module, by canonical name. */
export const LANGUAGE_LOADERS = new Map(Object.entries(TABLE).map(([name, [load]]) => [name, load]));

/** The canonical name for each alias, for a language not loaded yet. */
export const LANGUAGE_ALIASES = new Map(
  Object.entries(TABLE).flatMap(([name, [, aliases]]) => aliases.map((alias) => [alias, name] as const)),
);
