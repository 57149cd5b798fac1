/** Settings and project trust. */
import Type, { type Static } from "typebox";
import { PathString, Warning } from "../shapes.ts";

const Scope = Type.Union([Type.Literal("global"), Type.Literal("project")]);

export const ConfigReadParams = Type.Object({ cwd: Type.Optional(PathString) });
export type ConfigReadParams = Static<typeof ConfigReadParams>;

export const ConfigReadResult = Type.Object({
  settings: Type.Record(Type.String(), Type.Unknown()),
  /** Dotted leaf key -> the scope its value came from. */
  origins: Type.Record(Type.String(), Scope),
  /** SHA-256 of each scope's raw file contents, or "none". */
  versions: Type.Object({ global: Type.String(), project: Type.Optional(Type.String()) }),
  errors: Type.Array(Warning),
});
export type ConfigReadResult = Static<typeof ConfigReadResult>;

export const ConfigWriteParams = Type.Object({
  scope: Scope,
  /** Dotted key such as `retry.provider.maxRetryDelayMs`. */
  key: Type.String({ minLength: 1, maxLength: 1024 }),
  /** `null` deletes the leaf. */
  value: Type.Unknown(),
  cwd: Type.Optional(PathString),
  expectedVersion: Type.Optional(Type.String({ minLength: 1 })),
});
export type ConfigWriteParams = Static<typeof ConfigWriteParams>;

export const ConfigWriteResult = Type.Object({ version: Type.String() });
export type ConfigWriteResult = Static<typeof ConfigWriteResult>;

export const ProjectTrustReadParams = Type.Object({ cwd: PathString });
export type ProjectTrustReadParams = Static<typeof ProjectTrustReadParams>;

export const ProjectTrustReadResult = Type.Object({
  trusted: Type.Union([Type.Boolean(), Type.Null()]),
  needsTrust: Type.Boolean(),
});
export type ProjectTrustReadResult = Static<typeof ProjectTrustReadResult>;

export const ProjectTrustSetParams = Type.Object({
  cwd: PathString,
  trusted: Type.Boolean(),
});
export type ProjectTrustSetParams = Static<typeof ProjectTrustSetParams>;

export const ProjectTrustSetResult = Type.Object({});
export type ProjectTrustSetResult = Static<typeof ProjectTrustSetResult>;
