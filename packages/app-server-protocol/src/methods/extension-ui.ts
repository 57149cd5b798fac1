/**
 * Extension dialogs and display calls (`ctx.ui`). Only connections that declared
 * `capabilities.extensionDialogs` in `initialize` get them; without such a subscriber a
 * thread's dialogs answer at once with their no-answer value.
 */
import Type, { type Static } from "typebox";

/** Server request: an extension asks the user something. One subscriber is asked at a time. */
export const ExtensionRequestDialogParams = Type.Object({
  threadId: Type.String(),
  /** The running turn, or null when the dialog was opened outside one. */
  turnId: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Union([
    Type.Literal("select"),
    Type.Literal("confirm"),
    Type.Literal("input"),
    Type.Literal("editor"),
  ]),
  title: Type.String(),
  /** `confirm`: the question's body. */
  message: Type.Optional(Type.String()),
  /** `select`: the choices; the answer must be one of them. */
  options: Type.Optional(Type.Array(Type.String())),
  /** `input`: the hint shown in the empty field. */
  placeholder: Type.Optional(Type.String()),
  /** `editor`: the text the multi-line editor starts with. */
  prefill: Type.Optional(Type.String()),
});
export type ExtensionRequestDialogParams = Static<typeof ExtensionRequestDialogParams>;

/**
 * The user's answer: a string for `select`/`input`/`editor`, a boolean for `confirm`, null when
 * the user dismissed the dialog. An answer of the wrong type counts as no answer.
 */
export const ExtensionRequestDialogResult = Type.Object({
  value: Type.Union([Type.String(), Type.Boolean(), Type.Null()]),
});
export type ExtensionRequestDialogResult = Static<typeof ExtensionRequestDialogResult>;

/** `ctx.ui.notify`: a message for the user. */
export const ExtensionNotifyNotification = Type.Object({
  threadId: Type.String(),
  message: Type.String(),
  type: Type.Union([Type.Literal("info"), Type.Literal("warning"), Type.Literal("error")]),
});
export type ExtensionNotifyNotification = Static<typeof ExtensionNotifyNotification>;

/** `ctx.ui.setStatus`: a keyed status line; `text: null` removes it. */
export const ExtensionStatusChangedNotification = Type.Object({
  threadId: Type.String(),
  key: Type.String(),
  text: Type.Union([Type.String(), Type.Null()]),
});
export type ExtensionStatusChangedNotification = Static<typeof ExtensionStatusChangedNotification>;

/** Where a widget sits relative to the terminal's editor (pi's names; above is the default). */
export const ExtensionWidgetPlacement = Type.Union([
  Type.Literal("aboveEditor"),
  Type.Literal("belowEditor"),
]);
export type ExtensionWidgetPlacement = Static<typeof ExtensionWidgetPlacement>;

/** `ctx.ui.setWidget`: a keyed block of lines next to the editor; `lines: null` removes it. */
export const ExtensionWidgetChangedNotification = Type.Object({
  threadId: Type.String(),
  key: Type.String(),
  lines: Type.Union([Type.Array(Type.String()), Type.Null()]),
  placement: ExtensionWidgetPlacement,
});
export type ExtensionWidgetChangedNotification = Static<typeof ExtensionWidgetChangedNotification>;

/** `ctx.ui.setWorkingMessage`: the text of the working indicator while a turn runs; null restores the default. */
export const ExtensionWorkingMessageChangedNotification = Type.Object({
  threadId: Type.String(),
  message: Type.Union([Type.String(), Type.Null()]),
});
export type ExtensionWorkingMessageChangedNotification = Static<
  typeof ExtensionWorkingMessageChangedNotification
>;

/**
 * `ctx.ui.setWorkingIndicator`: the working indicator's frames (drawn as given, one per
 * `intervalMs`; none hides the glyph and keeps the text); null restores the default.
 */
export const ExtensionWorkingIndicatorChangedNotification = Type.Object({
  threadId: Type.String(),
  indicator: Type.Union([
    Type.Object({
      frames: Type.Array(Type.String(), { maxItems: 64 }),
      intervalMs: Type.Optional(Type.Integer({ minimum: 1 })),
    }),
    Type.Null(),
  ]),
});
export type ExtensionWorkingIndicatorChangedNotification = Static<
  typeof ExtensionWorkingIndicatorChangedNotification
>;

/** `ctx.ui.setWorkingVisible`: whether the working row shows at all while a turn runs (it does by default). */
export const ExtensionWorkingVisibleChangedNotification = Type.Object({
  threadId: Type.String(),
  visible: Type.Boolean(),
});
export type ExtensionWorkingVisibleChangedNotification = Static<
  typeof ExtensionWorkingVisibleChangedNotification
>;

/** `ctx.ui.setTitle`: the window (terminal) title the extension asks for. */
export const ExtensionTitleChangedNotification = Type.Object({
  threadId: Type.String(),
  title: Type.String(),
});
export type ExtensionTitleChangedNotification = Static<typeof ExtensionTitleChangedNotification>;
