// Reading a deployment's config.json for the command-line tools (check-config, headers): the same
// refusals, worded the same way, for a file that is missing, not JSON or not an object.
import { readFileSync } from 'node:fs';

/**
 * The parsed config.json at `path`, or undefined after printing an ERROR line (the tools exit 2).
 * @param {string} path
 * @returns {Record<string, unknown> | undefined}
 */
export function readConfigFile(path) {
  let config;
  try {
    config = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    console.error(`ERROR cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  if (!config || typeof config !== 'object' || Array.isArray(config)) {
    console.error(`ERROR ${path} must hold a JSON object`);
    return undefined;
  }
  return config;
}
