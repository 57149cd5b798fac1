/**
 * How highlighted code looks: highlight.js scopes mapped to the theme's code colours
 * (the basic colours in a 16-colour terminal, which follow the user's own palette).
 */
import type { CodeTheme, ScopeStyle } from "./highlight-html.ts";
import { color, sgr } from "./style.ts";

const keyword = color("keyword");
const string = color("string");
const number = color("number");
const type = color("type");
const name = color("name");
const property = color("property");
const comment = color("comment");
const removed = color("removed");
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
    section: color("name", "1", "22"),
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
