/**
 * `knightcode install <source>`, `remove <source>`, `list`, `update [source]`: packages
 * of extensions (npm:, git:, local paths and tarballs), in the user's agent dir by
 * default or the project's with `-l`; npm runs with `--ignore-scripts` unless
 * `--allow-scripts` is given.
 */
import { resolveAgentDir } from "@knightcode/config";
import {
  installPackage,
  listPackages,
  type PackageContext,
  removePackage,
  updatePackages,
} from "@knightcode/extensions";

export const PACKAGE_USAGE = `Usage:
  knightcode install <source> [-l] [--allow-scripts]
  knightcode remove <source> [-l]
  knightcode list
  knightcode update [source] [-l] [--allow-scripts]
Sources: npm:<name>[@version], git:<url>[@ref], a local folder, file or .tgz tarball.
  -l, --local        the project's packages (.knightcode/settings.json; the project must be trusted)
  --allow-scripts    let npm run the packages' install scripts (off by default)
`;

/** Runs one package command; returns the exit code. */
export async function runPackageCommand(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  let local = false;
  let allowScripts = false;
  const positional: string[] = [];
  for (const arg of rest) {
    if (arg === "-l" || arg === "--local") local = true;
    else if (arg === "--allow-scripts") allowScripts = true;
    else if (arg.startsWith("-")) return fail(`unknown option '${arg}'`);
    else positional.push(arg);
  }
  const context: PackageContext = {
    agentDir: resolveAgentDir(process.env),
    cwd: process.cwd(),
    scope: local ? "project" : "user",
  };
  try {
    switch (command) {
      case "install": {
        if (positional.length !== 1) return fail("install takes one source");
        const { source, installedAt } = await installPackage(positional[0]!, context, { allowScripts });
        process.stdout.write(`Installed ${source} (${context.scope}) at ${installedAt}\n`);
        return 0;
      }
      case "remove": {
        if (positional.length !== 1) return fail("remove takes one source");
        if (!(await removePackage(positional[0]!, context))) {
          process.stderr.write(`knightcode: ${positional[0]} is not installed (${context.scope})\n`);
          return 1;
        }
        process.stdout.write(`Removed ${positional[0]} (${context.scope})\n`);
        return 0;
      }
      case "list": {
        if (positional.length > 0 || local) return fail("list takes no arguments");
        const packages = await listPackages(context);
        if (packages.length === 0) process.stdout.write("No packages installed.\n");
        for (const pkg of packages) {
          const where = pkg.installedAt
            ? `${pkg.version ? `${pkg.version} ` : ""}${pkg.installedAt}`
            : "not installed";
          process.stdout.write(`${pkg.scope}\t${pkg.source}\t${where}\n`);
        }
        return 0;
      }
      case "update": {
        if (positional.length > 1) return fail("update takes at most one source");
        const updated = await updatePackages(context, positional[0], { allowScripts });
        process.stdout.write(
          updated.length === 0 ? "Nothing to update.\n" : `Updated ${updated.join(", ")}\n`,
        );
        return 0;
      }
      default:
        return fail(`unknown package command '${command}'`);
    }
  } catch (error) {
    process.stderr.write(`knightcode: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function fail(message: string): number {
  process.stderr.write(`knightcode: ${message}\n${PACKAGE_USAGE}`);
  return 2;
}
