// The extension's settings as the server reads them (flake8_tensorcopy/server/settings.py):
// `{"flake8-tensorcopy": {"select": [...], "ignore": [...], "unsafeFixes": bool}}`.
// Only these keys go to the server, which rejects any other key under its section.

export const SECTION = "flake8-tensorcopy";

/** The settings that restart the server when they change (the others are sent to it). */
export const RESTARTING = ["enable", "path"] as const;
export const SENT = ["select", "ignore", "unsafeFixes"] as const;

export interface ServerSettings {
  select: string[];
  ignore: string[];
  unsafeFixes: boolean;
}

/** Reads one setting of the section, as `WorkspaceConfiguration.get` does. */
export type Reader = (key: string) => unknown;

export function serverSettings(read: Reader): ServerSettings {
  return {
    select: codes(read("select")),
    ignore: codes(read("ignore")),
    unsafeFixes: (read("unsafeFixes") ?? false) as boolean,
  };
}

/** What initializationOptions and workspace/didChangeConfiguration carry. */
export function serverPayload(read: Reader): { [SECTION]: ServerSettings } {
  return { [SECTION]: serverSettings(read) };
}

// A code prefix list. A value of another type is passed through as the user wrote it (as
// is a non-boolean unsafeFixes), for the server to reject with a message that names it.
function codes(value: unknown): string[] {
  if (value === undefined || value === null) {
    return [];
  }
  if (typeof value === "string") {
    return value.split(",").map((code) => code.trim()).filter(Boolean);
  }
  return value as string[];
}
