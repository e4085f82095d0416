/**
 * `capstan --help`: every command's usage, and `capstan <command> [sub] --help`: one command's,
 * in one module that imports nothing, so printing it loads none of the commands' code
 * (electron/cli/main.ts imports a command's modules when it runs).
 */

export const SERVE_USAGE = `  serve    Run the gateway and serve the console on loopback
           flag            or environment
           --port N        CAPSTAN_PORT         port to listen on (default 7077; 0 = any free port)
           --host H        CAPSTAN_HOST         address to bind (default 127.0.0.1)
           --token T       CAPSTAN_TOKEN        API bearer token, 16 or more characters (default:
                                                random); as a flag, other local users can see it
           --token-file F  CAPSTAN_TOKEN_FILE   read the token from file F, keep it chmod 600
           --data-dir DIR  CAPSTAN_DATA_DIR     where the database, config.json and skills/ live
                                                (default: the per-user app-data folder)
           --skills-dir D  CAPSTAN_SKILLS_DIRS  another folder of <name>/SKILL.md skills; the flag
                                                repeats, the variable separates folders as PATH does
           --log-level L   CAPSTAN_LOG_LEVEL    fatal, error, warn, info, debug, trace or silent
                                                (default info; logs go to stderr)
           A flag wins over its environment variable.
`;

export const LEDGER_USAGE = `  ledger verify    Check the ledger's hash chain, each entry's keyed MAC and the keyed checkpoint
                   (ledger.head); exit 1 and name what is broken: an edited, deleted, unlinked or
                   forged entry, a truncated or rewritten tail, a missing or tampered checkpoint;
                   --against FILE then checks an exported audit stream (the ledger's OpenTelemetry
                   log records, OTLP JSON, one export request a line) holds the ledger's entries,
                   unaltered and in order (exit 1 names the first that differs)
  ledger reseal    Accept the ledger as it is and seal its head (after restoring a backup, or for
                   a ledger older than ledger.head); refused unless the chain and MACs hold
  ledger tail      Print the last entries, one readable line each: seq, time, kind, principal,
                   capability, requestId, what it records (-n N, default 20; --follow to keep
                   printing new ones; --json for JSON lines)
  ledger export    Print every entry as JSON lines (--after SEQ to start later)
           --data-dir DIR  CAPSTAN_DATA_DIR     as for serve; a data dir with no database is
                                                refused (exit 2), and nothing is created there
`;

export const TOKEN_USAGE = `  token create --name NAME   Make a token for agent NAME (1-64 of A-Z a-z 0-9 _ . -) and print it
                             once, alone on the last line; only its SHA-256 is kept
  token list                 The agents with a token: name, created, last used
  token revoke NAME          Revoke NAME's token, at once, in a running gateway too; the name may
                             then be given a new token
           --data-dir DIR  as for serve; list and revoke refuse a data dir with no database
`;

export const MCP_USAGE = `  mcp      Serve Capstan's MCP tools over stdio, for MCP hosts that launch a command. Relays to
           the running gateway of the data dir, and starts one (capstan serve, detached) if none
           runs, so every agent shares one runtime and one ledger
           --token-file F  CAPSTAN_TOKEN_FILE   the agent token (capstan token create --name NAME),
                                                or CAPSTAN_TOKEN=<token>
           --data-dir DIR  CAPSTAN_DATA_DIR     as for serve
`;

export const HARN_USAGE = `  harn run FILE    Run a Harn script as a task on the running gateway and print its output and
                   outcome (exit 0 only if it succeeded, else 1; 2 and 3 as for tools below;
                   Ctrl-C cancels it)
           --prompt TEXT   the prompt the script is given
           --session ID    the session to run it in (default operator)
           --url URL       CAPSTAN_URL          the gateway (default: the one running for the data dir)
           --token-file F  CAPSTAN_TOKEN_FILE   the gateway's operator token, or CAPSTAN_TOKEN=<token>
           --data-dir DIR  CAPSTAN_DATA_DIR     as for serve
`;

export const OPERATOR_USAGE = `  tools            List the running gateway's tools (name, risk, whether each needs confirmation
                   or writes data); --json prints the gateway's answer
  call TOOL        Call a tool and print its result as JSON, and its requestId on stderr (failed
                   or not). Arguments: --json '{…}' (an object), and/or --arg key=value (repeats;
                   the value is read by the tool's input schema: a string as it is, a number,
                   boolean, array or object as JSON). A tool that
                   needs confirmation is shown and asked about on the terminal; without one the
                   call is refused (CONFIRMATION_REQUIRED, exit 4). --session ID runs it in that
                   session (default operator); --envelope prints the gateway's whole answer
  tasks            List the tasks (active, then the most recent ended); --json prints the answer,
                   --limit N how many ended ones (default 50, at most 200)
           --url URL       CAPSTAN_URL          the gateway (default: the one running for the data dir)
           --token-file F  CAPSTAN_TOKEN_FILE   the gateway's operator token, or CAPSTAN_TOKEN=<token>
           --data-dir DIR  CAPSTAN_DATA_DIR     as for serve
           exit codes: 0 done, 1 the gateway answered an error (UNAUTHORIZED: the token given
           was refused), 2 usage (no token given), 3 no gateway answered
           (GATEWAY_UNREACHABLE), 4 confirmation needed and not given (nothing ran)
`;

export const PINS_USAGE = `  pins list        The MCP tools held for review (pinned contracts): changed since they were
                   pinned, or new; what changed and what the review should see; --json
  pins diff ID     Each changed part of ID's descriptor, as pinned (-) and as now (+), with hidden
                   characters and lookalike letters shown as ⟦U+XXXX …⟧, and the findings; --json
  pins accept ID   Show the diff, ask on the terminal, and accept the descriptor shown (bound to its
                   hash: one that changed again stays held). Without a terminal it is refused
                   (exit 4) unless --yes
           --url, --token-file, --data-dir and exit codes as for tools above
`;

export const LOGS_USAGE = `  logs NAME        An MCP server's log lines (notifications/message) as the gateway kept them:
                   time, level, logger, text (-n N, default 50, at most 500); --level L only
                   lines at L or more severe (debug, info, notice, warning, error, critical,
                   alert, emergency); --follow keeps printing new ones; --json for JSON lines;
                   --set-level L first asks the server to send lines at L and above
           --url, --token-file, --data-dir and exit codes as for tools above
`;

export const MCP_SERVERS_USAGE = `  mcp-servers login NAME
                   Sign in to a URL MCP server with OAuth: prints the authorization URL, opens it
                   in the browser (not with --no-browser) and waits until the browser came back;
                   the running gateway keeps the tokens and reconnects the server. Exit 1 with
                   the reason when the sign-in fails
  mcp-servers logout NAME
                   Forget the server's tokens (revoked at the authorization server where it
                   offers revocation); the server then waits for a sign-in
  mcp-servers auth NAME
                   Signed in as, scopes, expiry, next refresh, the last error; --json
           --url, --token-file, --data-dir and exit codes as for tools above
`;

export const RESOURCES_USAGE = `  resources        The MCP servers' resources and resource templates you may discover: URI (or
                   template), server, MIME type, title, catalog id; --server NAME only that
                   server's; --json prints the gateway's answer
  read URI         Read a resource (or a URI one of its templates describes) and print its text;
                   a binary one is written to --out FILE. --server NAME when several servers list
                   the URI; --id ID instead of the URI, a template's with --var name=value
                   (repeats); --json prints the answer. The requestId goes to stderr
  prompts          The MCP servers' prompts you may discover, with their arguments ([optional])
  prompt NAME      Get a prompt with --arg key=value (repeats) and print its messages as
                   role: text; NAME is the server's name for it or its catalog id; --server,
                   --json as above. Reads and gets are recorded in the ledger (digests only)
           --session ID    the session to run in (read, prompt; default operator)
           --url, --token-file, --data-dir and exit codes as for tools above
`;

/** One line per command (and subcommand) of how it is called, for `capstan <command> --help`. */
const SYNOPSES: Record<string, Record<string, string>> = {
  serve: { '': 'capstan serve [--port N] [--host H] [--token-file F] [--data-dir DIR] [--skills-dir D] [--log-level L]' },
  ledger: {
    verify: 'capstan ledger verify [--against FILE] [--data-dir DIR]',
    reseal: 'capstan ledger reseal [--data-dir DIR]',
    tail: 'capstan ledger tail [-n N] [--follow] [--json] [--data-dir DIR]',
    export: 'capstan ledger export [--after SEQ] [--data-dir DIR]',
  },
  token: {
    create: 'capstan token create --name NAME [--data-dir DIR]',
    list: 'capstan token list [--data-dir DIR]',
    revoke: 'capstan token revoke NAME [--data-dir DIR]',
  },
  mcp: { '': 'capstan mcp [--token-file F] [--data-dir DIR]' },
  harn: { run: 'capstan harn run FILE [--prompt TEXT] [--session ID] [--url URL] [--token-file F] [--data-dir DIR]' },
  tools: { '': 'capstan tools [--json] [--url URL] [--token-file F] [--data-dir DIR]' },
  call: { '': "capstan call TOOL [--json '{…}'] [--arg key=value …] [--session ID] [--envelope] [--url URL] [--token-file F] [--data-dir DIR]" },
  tasks: { '': 'capstan tasks [--json] [--limit N] [--url URL] [--token-file F] [--data-dir DIR]' },
  pins: {
    list: 'capstan pins list [--json] [--url URL] [--token-file F] [--data-dir DIR]',
    diff: 'capstan pins diff ID [--json] [--url URL] [--token-file F] [--data-dir DIR]',
    accept: 'capstan pins accept ID [--yes] [--json] [--url URL] [--token-file F] [--data-dir DIR]',
  },
  logs: { '': 'capstan logs NAME [--level L] [-n N] [--follow] [--json] [--set-level L] [--url URL] [--token-file F] [--data-dir DIR]' },
  resources: { '': 'capstan resources [--server NAME] [--json] [--url URL] [--token-file F] [--data-dir DIR]' },
  read: { '': 'capstan read URI | --id ID [--var name=value …] [--server NAME] [--out FILE] [--json] [--session ID] [--url URL] [--token-file F] [--data-dir DIR]' },
  prompts: { '': 'capstan prompts [--server NAME] [--json] [--url URL] [--token-file F] [--data-dir DIR]' },
  'mcp-servers': {
    login: 'capstan mcp-servers login NAME [--no-browser] [--url URL] [--token-file F] [--data-dir DIR]',
    logout: 'capstan mcp-servers logout NAME [--url URL] [--token-file F] [--data-dir DIR]',
    auth: 'capstan mcp-servers auth NAME [--json] [--url URL] [--token-file F] [--data-dir DIR]',
  },
  prompt: { '': 'capstan prompt NAME [--arg key=value …] [--server NAME] [--json] [--session ID] [--url URL] [--token-file F] [--data-dir DIR]' },
};

const SECTIONS: Record<string, string> = {
  serve: SERVE_USAGE,
  ledger: LEDGER_USAGE,
  token: TOKEN_USAGE,
  mcp: MCP_USAGE,
  harn: HARN_USAGE,
  tools: OPERATOR_USAGE,
  call: OPERATOR_USAGE,
  tasks: OPERATOR_USAGE,
  pins: PINS_USAGE,
  logs: LOGS_USAGE,
  resources: RESOURCES_USAGE,
  read: RESOURCES_USAGE,
  prompts: RESOURCES_USAGE,
  prompt: RESOURCES_USAGE,
  'mcp-servers': MCP_SERVERS_USAGE,
};

/** The commands `capstan --help` lists, in its order. */
export const USAGE = `Usage: capstan <command> [options]   (capstan <command> --help for one command)

Commands:
${SERVE_USAGE}${LEDGER_USAGE}${TOKEN_USAGE}${MCP_USAGE}${HARN_USAGE}${OPERATOR_USAGE}${PINS_USAGE}${LOGS_USAGE}${MCP_SERVERS_USAGE}${RESOURCES_USAGE}`;

/**
 * `capstan <command> [sub] --help`: how the subcommand (or each of the command's) is called, then
 * the command's part of the usage; undefined for a command that does not exist.
 */
export function commandUsage(command: string, sub: string | undefined): string | undefined {
  const synopses = Object.hasOwn(SYNOPSES, command) ? SYNOPSES[command]! : undefined;
  if (!synopses) return undefined;
  const lines = sub !== undefined && Object.hasOwn(synopses, sub) ? [synopses[sub]!] : Object.values(synopses);
  return `Usage: ${lines.join('\n       ')}\n\n${SECTIONS[command]!}`;
}

/** The commands and subcommands that answer --help, as `[command, sub]` (sub '' for none). */
export const HELP_TOPICS: readonly (readonly [string, string])[] = Object.entries(SYNOPSES).flatMap(([command, subs]) => Object.keys(subs).map((sub) => [command, sub] as const));
