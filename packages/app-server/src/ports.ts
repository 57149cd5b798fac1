/**
 * The services the server routes to besides the ThreadManager. Each is an interface so
 * hosts wire the real packages (`@knightcode/config`) and the server stays free of
 * their construction details.
 */
import type {
  AccountLoginApiKeyParams,
  AccountLogoutParams,
  AccountReadResult,
  ConfigReadParams,
  ConfigReadResult,
  ConfigWriteParams,
  ConfigWriteResult,
  ProjectTrustReadParams,
  ProjectTrustReadResult,
  ProjectTrustSetParams,
} from "@knightcode/app-server-protocol";

/** Settings and project trust, as `config/*` and `project/trust/*` expose them. Errors carry wire codes. */
export interface ConfigPort {
  read(params: ConfigReadParams): Promise<ConfigReadResult>;
  write(params: ConfigWriteParams): Promise<ConfigWriteResult>;
  readTrust(params: ProjectTrustReadParams): Promise<ProjectTrustReadResult>;
  setTrust(params: ProjectTrustSetParams): Promise<void>;
}

/** Credentials, as `account/*` expose them. */
export interface AccountPort {
  read(): Promise<AccountReadResult>;
  loginApiKey(params: AccountLoginApiKeyParams): Promise<void>;
  logout(params: AccountLogoutParams): Promise<void>;
  /** Cancels login flows still waiting on the user (shutdown). */
  cancelPendingLogins(): void;
}
