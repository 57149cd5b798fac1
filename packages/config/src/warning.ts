/** The protocol's warning shape, declared here because config sits below the protocol package. */
export interface ConfigWarning {
  message: string;
  source: "settings" | "extension" | "trust" | "server" | "mcp" | "sandbox";
  path?: string;
  /** One-based. */
  line?: number;
  /** One-based. */
  column?: number;
}
