/**
 * Prefix-analysis throughput: how fast the gate can judge shell commands, for typical
 * commands, attacks that fail early and late, and the longest command still analysed.
 */

import { Bench } from "tinybench";
import {
  emptyGrants,
  gateToolCall,
  grantCovers,
  shellPrefix,
  withPrefixGrant,
} from "../packages/approvals/src/index.ts";

const typical = [
  "git status --short",
  "npm run build",
  "rg -n --glob '*.ts' TODO src",
  "go test -run TestX ./...",
];
const attacks = [
  "git status; rm -rf ~",
  "GIT_DIR=/tmp git status",
  "git -c core.pager='sh -c x' log",
  "g\u0456t status",
];
const long = `git log ${"--oneline ".repeat(400)}`.slice(0, 4000);
const grants = withPrefixGrant(emptyGrants(), { shell: "bash", prefix: ["git", "status"] });

const bench = new Bench({ time: 300 });
bench
  .add("shellPrefix bash: 4 typical commands", () => {
    for (const c of typical) shellPrefix(c, "bash");
  })
  .add("shellPrefix bash: 4 attacks", () => {
    for (const c of attacks) shellPrefix(c, "bash");
  })
  .add("shellPrefix powershell: 4 typical commands", () => {
    for (const c of typical) shellPrefix(c, "powershell");
  })
  .add("shellPrefix bash: 4,000-char command", () => {
    shellPrefix(long, "bash");
  })
  .add("grantCovers: git status grant vs git status -sb", () => {
    grantCovers({ shell: "bash", prefix: ["git", "status"] }, "git status -sb");
  })
  .add("gateToolCall: bash covered by a grant", () => {
    gateToolCall({ mode: "ask", toolName: "bash", input: { command: "git status -sb" }, cwd: "/", grants });
  });

await bench.run();
console.table(bench.table());
