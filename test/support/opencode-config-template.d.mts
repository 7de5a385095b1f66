/** The version of the opencode binary: its npm package's version (opencode-ai), else `opencode --version`. */
export function opencodeVersion(binary: string): string;
/** Where the template is kept: `.cache` of the project whose node_modules holds `binary`, else of the working directory. */
export function opencodeCacheRoot(binary: string): string;
/** Whether `dir` holds the plugin SDK as opencode's own check wants it. */
export function isOpencodeConfigTemplate(dir: string): boolean;
/** The directory holding the plugin SDK for `version` (installed once with npm); null when it cannot be installed. */
export function ensureOpencodeConfigTemplate(
  version: string,
  cacheRoot: string,
  log?: (message: string) => void,
): Promise<string | null>;
/** Gives `configDir` (a server HOME's `~/.config/opencode`) the SDK of `template`: files copied, node_modules hard-linked. */
export function seedOpencodeConfig(template: string, configDir: string): void;
