/**
 * `capstan --help`: every command's usage, in one module that imports nothing, so printing it
 * loads none of the commands' code (electron/cli/main.ts imports a command's modules when it runs).
 */

export const TOKEN_USAGE = `  token create --name NAME   Make a token for agent NAME (1-64 of A-Z a-z 0-9 _ . -) and print it
                             once, alone on the last line; only its SHA-256 is kept
  token list                 The agents with a token: name, created, last used
  token revoke NAME          Revoke NAME's token, at once, in a running gateway too; the name may
                             then be given a new token
           --data-dir DIR  as for serve
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
  call TOOL        Call a tool and print its result as JSON. Arguments: --json '{…}' (an object),
                   and/or --arg key=value (repeats; the value is read by the tool's input schema:
                   a string as it is, a number, boolean, array or object as JSON). A tool that
                   needs confirmation is shown and asked about on the terminal; without one the
                   call is refused (CONFIRMATION_REQUIRED, exit 4). --session ID runs it in that
                   session (default operator); --envelope prints the gateway's whole answer
  tasks            List the tasks (active, then the most recent ended); --json prints the answer,
                   --limit N how many ended ones (default 50, at most 200)
           --url URL       CAPSTAN_URL          the gateway (default: the one running for the data dir)
           --token-file F  CAPSTAN_TOKEN_FILE   the gateway's operator token, or CAPSTAN_TOKEN=<token>
           --data-dir DIR  CAPSTAN_DATA_DIR     as for serve
           exit codes: 0 done, 1 the gateway answered an error, 2 usage, 3 no gateway answered
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
