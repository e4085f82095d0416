/**
 * The environment of a program Capstan starts (an MCP server over stdio, a Harn run): an allowed
 * list, never the gateway's whole environment, which holds `CAPSTAN_TOKEN` (the operator's token)
 * and whatever else the operator exported. The list is the MCP SDK's: on POSIX `HOME`, `LOGNAME`,
 * `PATH`, `SHELL`, `TERM` and `USER`; on Windows the few variables programs need to start. A
 * program needing more gets it from its own config.json `env`, added on top.
 */
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';

export function childEnvironment(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { ...getDefaultEnvironment(), ...extra };
}
