// Which command starts the language server: pure logic, with the file system and
// Python probes passed in, so the unit tests run it without VS Code.

import * as path from "node:path";

export const INSTALL_SPEC = "flake8-tensorcopy[server]";

export interface ServerCommand {
  command: string;
  args: string[];
  /** How it was found, for the output channel. */
  origin: string;
}

export interface Missing {
  /** The one message shown to the user. */
  message: string;
  /** The command that installs the server, offered for copying (none when the path setting is wrong). */
  install?: string;
}

export type Resolution = { found: ServerCommand } | { missing: Missing };

export interface Probes {
  /** Whether `file` exists and may be executed. */
  isExecutable(file: string): Promise<boolean>;
  /** Whether the interpreter `python` can import flake8_tensorcopy and pygls. */
  hasServer(python: string): Promise<boolean>;
}

export interface Environment {
  PATH?: string;
  PATHEXT?: string;
}

/** The server command, looked for in the issue's order: the `flake8-tensorcopy.path`
 * setting; the interpreter selected in the Python extension; `flake8-tensorcopy` on PATH. */
export async function resolveServer(
  pathSetting: string,
  interpreter: string | undefined,
  env: Environment,
  platform: NodeJS.Platform,
  probes: Probes,
): Promise<Resolution> {
  const configured = pathSetting.trim();
  if (configured !== "") {
    if (await probes.isExecutable(configured)) {
      return { found: { command: configured, args: ["server"], origin: "the flake8-tensorcopy.path setting" } };
    }
    return {
      missing: {
        message: `flake8-tensorcopy: the flake8-tensorcopy.path setting names ${configured}, which is not an executable file. Fix or clear the setting.`,
      },
    };
  }
  if (interpreter !== undefined && (await probes.hasServer(interpreter))) {
    return {
      found: {
        command: interpreter,
        args: ["-m", "flake8_tensorcopy", "server"],
        origin: `the interpreter selected in the Python extension (${interpreter})`,
      },
    };
  }
  const onPath = await findOnPath("flake8-tensorcopy", env, platform, probes);
  if (onPath !== undefined) {
    return { found: { command: onPath, args: ["server"], origin: "PATH" } };
  }
  const python = interpreter ?? (platform === "win32" ? "python" : "python3");
  const install = `${shellQuote(python)} -m pip install '${INSTALL_SPEC}'`;
  const where = interpreter === undefined ? "no Python interpreter is selected and it is not on PATH" : `it is not installed for the selected interpreter ${interpreter} nor on PATH`;
  return {
    missing: {
      message: `flake8-tensorcopy: the language server was not found (${where}). Install it with: ${install}`,
      install,
    },
  };
}

/** The first `name` on PATH that may be executed (with PATHEXT's extensions on Windows). */
export async function findOnPath(
  name: string,
  env: Environment,
  platform: NodeJS.Platform,
  probes: Pick<Probes, "isExecutable">,
): Promise<string | undefined> {
  const separator = platform === "win32" ? ";" : ":";
  const join = platform === "win32" ? path.win32.join : path.posix.join;
  const extensions = platform === "win32" ? (env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").split(";").filter(Boolean) : [""];
  for (const folder of (env.PATH ?? "").split(separator)) {
    if (folder === "") {
      continue; // an empty entry means the current folder, which is not where a server lives
    }
    for (const extension of extensions) {
      const candidate = join(folder, name + extension);
      if (await probes.isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/** `word` as one shell word, quoted only when it needs to be. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./\\-]+$/.test(word) ? word : `"${word.replace(/(["\\$`])/g, "\\$1")}"`;
}

/** The Python code that exits 0 only where the server can start. */
export const HAS_SERVER_PROBE =
  "import importlib.util, sys; sys.exit(0 if all(importlib.util.find_spec(m) for m in ('flake8_tensorcopy', 'pygls')) else 1)";
