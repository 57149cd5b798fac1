/**
 * Protocol shapes as the manager produces them. The manager never emits payload
 * references (the app server makes those at serialization), so its `Turn` holds plain
 * items; it stays assignable to the protocol's `Turn`.
 */
import type {
  ErrorKind,
  FileChange,
  Turn as ProtocolTurn,
  ThreadItem,
  Warning,
} from "@knightcode/app-server-protocol";

/** A turn whose items are whole values, never payload references. */
export type Turn = Omit<ProtocolTurn, "items"> & { items?: ThreadItem[] };

export type { ErrorKind, FileChange, ThreadItem, Warning };
