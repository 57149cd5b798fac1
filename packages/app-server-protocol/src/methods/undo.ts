/**
 * `thread/undo`: puts back the files the thread's last turn changed, from the git
 * checkpoint the server took before that turn (the terminal's `/undo`). Checkpoints are
 * taken where the server runs, so a client on another machine undoes the server's files.
 */
import Type, { type Static } from "typebox";

export const ThreadUndoParams = Type.Object({ threadId: Type.String({ minLength: 1, maxLength: 256 }) });
export type ThreadUndoParams = Static<typeof ThreadUndoParams>;

/** One path undo put back: its checkpointed content `restored`, or `removed` (the turn created it). */
export const RestoredPath = Type.Object({
  /** Relative to the repository root, `/`-separated. */
  path: Type.String(),
  action: Type.Union([Type.Literal("restored"), Type.Literal("removed")]),
});
export type RestoredPath = Static<typeof RestoredPath>;

/** A file the turn reported changing that undo could not put back, and why. */
export const UnrestoredPath = Type.Object({
  /** Relative to the repository root; absolute when outside it. */
  path: Type.String(),
  /**
   * `outsideRepository`: no checkpoint covers it. `notCheckpointed`: git ignores it and
   * the checkpoint did not hold it (inside an ignored folder, or over the size budget).
   */
  reason: Type.Union([Type.Literal("outsideRepository"), Type.Literal("notCheckpointed")]),
});
export type UnrestoredPath = Static<typeof UnrestoredPath>;

export const ThreadUndoResult = Type.Object({
  /** The turn whose changes were undone. */
  turnId: Type.String(),
  restored: Type.Array(RestoredPath),
  notRestored: Type.Array(UnrestoredPath),
  /** Earlier turns that can still be undone. */
  remaining: Type.Integer({ minimum: 0 }),
});
export type ThreadUndoResult = Static<typeof ThreadUndoResult>;
