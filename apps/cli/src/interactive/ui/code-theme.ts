/**
 * How highlighted code looks: highlight.js scopes mapped to the terminal's basic colors,
 * which every terminal has and which follow the user's own palette.
 */
import type { CodeTheme, ScopeStyle } from "./highlight-html.ts";
import { sgr } from "./style.ts";

const keyword = sgr("35", "39");
const string = sgr("32", "39");
const number = sgr("33", "39");
const type = sgr("33", "39");
const name = sgr("34", "39");
const property = sgr("36", "39");
const comment = sgr("90", "39");
const removed = sgr("31", "39");
/** Drawn as the code around it: stops an enclosing scope's color (`${…}` in a string). */
const plain: ScopeStyle = (text) => text;

const SCOPES = new Map<string, ScopeStyle>(
  Object.entries({
    keyword,
    "selector-tag": keyword,
    doctag: keyword,
    literal: number,
    number,
    symbol: number,
    bullet: number,
    string,
    regexp: string,
    addition: string,
    "char.escape": number,
    subst: plain,
    type,
    built_in: type,
    "title.class": type,
    class: type,
    title: name,
    "title.function": name,
    section: sgr("1;34", "22;39"),
    name,
    "selector-id": name,
    "selector-class": name,
    attr: property,
    attribute: property,
    property,
    variable: property,
    "template-variable": property,
    "selector-attr": property,
    "selector-pseudo": property,
    comment,
    quote: comment,
    meta: comment,
    "meta.keyword": keyword,
    "meta.string": string,
    deletion: removed,
    emphasis: sgr("3", "23"),
    strong: sgr("1", "22"),
    link: sgr("4", "24"),
  }),
);

/** The terminal theme for code blocks. */
export const codeTheme: CodeTheme = (scope) => SCOPES.get(scope);
