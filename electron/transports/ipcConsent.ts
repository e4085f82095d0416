/**
 * What the desktop window may not do on its own word. Over IPC the page is the operator, so a
 * page running injected script would be the operator too: it could save an MCP server whose
 * command starts at once, start a Harn script, hand out an agent token, accept a changed contract,
 * answer a server's question, sign in to a server, lift a session's block after an unknown
 * outcome, re-enable what the operator switched off or change a server's policy. Those changes
 * are put to the operator in a native dialog the page can neither draw nor answer, as a tool call
 * needing confirmation is; the rest (reads, and changes that only take access away) go through.
 *
 * The dialog must not be made to lie. Every value the page sent is shown on one line of its own
 * (newlines, tabs, control, bidirectional and invisible characters as visible stand-ins), quoted
 * where it is a value, and nothing of a program's command line is masked; text that is many lines
 * by nature (a prompt, an answer) is shown with each of its lines marked. What the dialog says of
 * a change Capstan already holds (a held tool's diff, a server's question) is read here, in the
 * main process, never taken from the page. A change too long to read whole has no approve button.
 */
import { operations, type OperationName } from '../../shared/api';
import { isMasked, transportOf, type McpServerEntry } from '../../shared/mcp';
import type { PinDiff } from '../../shared/pins';
import type { ServerAskView } from '../../shared/serverAsks';
import { visibleText } from '../../shared/visibleText';
import { isSecretName } from '../providers/mcp/secrets';

export interface ConfirmationPrompt {
  options: {
    type: 'warning';
    title: string;
    message: string;
    detail: string;
    buttons: string[];
    defaultId: number;
    cancelId: number;
    noLink: boolean;
  };
  /** The button index that approves, absent when what is asked cannot be approved here. */
  approveId: number | undefined;
}

/** What the dialog reads of the change from Capstan itself rather than from the page. */
export interface ConsentLookups {
  pinDiff(id: string): Promise<PinDiff | undefined>;
  ask(id: string): Promise<ServerAskView | undefined>;
}

/** The most a dialog shows: a change longer than this, in characters or lines, cannot be approved there. */
const SHOWN_CHARS = 4000;
const SHOWN_LINES = 60;

/**
 * The dialog that must approve this operation first, when it comes from the window; undefined
 * when it needs none, or when its payload is not even well formed (dispatch refuses it then).
 */
export async function consentPrompt(operation: OperationName, payload: unknown, look: ConsentLookups): Promise<ConfirmationPrompt | undefined> {
  const parsed = operations[operation].input.safeParse(payload);
  if (!parsed.success) return undefined;
  const input = parsed.data as Record<string, unknown>;
  switch (operation) {
    case 'saveMcpServer': {
      const { name, entry } = input as { name: string; entry: McpServerEntry };
      const starts = entry.enabled === false ? 'It is saved disabled: nothing starts until it is enabled.' : transportOf(entry) === 'stdio' ? 'Capstan starts this program now, and each time it connects:' : 'Capstan connects to this address now, and each time it connects:';
      return ask('Save MCP server', `Save the MCP server ${quoted(name)}?`, [starts, ...serverLines(entry)], 'Save');
    }
    case 'setServerPolicy': {
      const { name, ...policy } = input as { name: string };
      return ask('Change server policy', `Change the policy of the MCP server ${quoted(name)}?`, ['The policy it will have:', ...marked(JSON.stringify(policy, null, 2))], 'Change policy');
    }
    case 'acceptPin': {
      const { id, hash } = input as { id: string; hash?: string };
      const diff = await look.pinDiff(id);
      if (!diff) return undefined;
      const { hold } = diff;
      const lines = [
        `What changed: ${hold.kind}${hold.renamedFrom ? ` (was ${quoted(hold.renamedFrom)})` : ''}; ${hold.changed.map(one).join(', ') || 'nothing'}`,
        ...(hold.findings.length > 0 ? [`To look at: ${hold.findings.map(one).join(', ')}`] : []),
        'The tool as the server now describes it:',
        ...marked(JSON.stringify(diff.current, null, 2)),
      ];
      // Only the version the operator reviewed may be accepted: one that changed again since is not this one.
      const current = hash !== undefined && hash === hold.currentHash;
      const prompt = ask('Accept changed tool', `Accept ${quoted(id)} as its server now describes it?`, lines, 'Accept');
      return current ? prompt : unapprovable(prompt, hash === undefined ? 'Accept it from the console, which names the version you reviewed.' : 'The tool changed again since you reviewed it: review it again.');
    }
    case 'startHarnRun': {
      const { script, prompt, sessionId } = input as { script: string; prompt?: string; sessionId?: string };
      return ask('Run Harn script', `Run the Harn script ${quoted(script)}?`, [`Harn starts as a process of its own and calls tools through Capstan, in the session ${quoted(sessionId ?? 'operator')}.`, ...(prompt ? ['Prompt:', ...marked(prompt)] : [])], 'Run');
    }
    case 'createAgent': {
      const { name } = input as { name: string };
      return ask('Create agent token', `Create an agent token for ${quoted(name)}?`, [`Whoever holds the token can discover and call tools as agent:${one(name)}, within the agents' grants, until you revoke it.`], 'Create token');
    }
    case 'setCapabilityRevoked': {
      const { id, revoked } = input as { id: string; revoked: boolean };
      return revoked ? undefined : ask('Restore capability', `Restore ${quoted(id)}?`, ['It was revoked, so every call to it was refused; restored, it can be called again.'], 'Restore');
    }
    case 'setProviderEnabled': {
      const { provider, enabled } = input as { provider: string; enabled: boolean };
      return enabled ? ask('Enable provider', `Enable the provider ${quoted(provider)}?`, ['Its capabilities can be called again; an MCP server’s program is started, or its address connected to.'], 'Enable') : undefined;
    }
    case 'signInServer': {
      const { name } = input as { name: string };
      return ask('Sign in to MCP server', `Sign in to the MCP server ${quoted(name)}?`, ['Your browser opens its authorization server’s page. What you grant there is used for every call to this server, agents’ calls included, until you sign out.'], 'Sign in');
    }
    case 'acknowledgeOutcome': {
      const { id, requestId } = input as { id: string; requestId: string };
      return ask('Acknowledge unknown outcome', `Acknowledge the unknown outcome of ${quoted(requestId)}?`, [`Its task ${quoted(id)} could not tell whether the call changed anything, so the session's changes wait until you have checked. Acknowledged, they run again.`], 'Acknowledge');
    }
    case 'answerAsk': {
      const { id, action, content, reply, open } = input as { id: string; action: string; content?: Record<string, unknown>; reply?: string; open?: boolean };
      if (action !== 'accept') return undefined;
      const asked = await look.ask(id);
      if (!asked) return undefined;
      const answer = content !== undefined ? JSON.stringify(content, null, 2) : reply;
      return ask('Answer MCP server', `Send your answer to the MCP server ${quoted(asked.server)}?`, [
        'It asked:',
        ...marked(asked.message),
        ...(answer !== undefined ? ['Your answer, exactly as it will be sent:', ...marked(answer)] : []),
        ...(open && asked.url ? [`Capstan opens this page in your browser: ${quoted(asked.url)}`] : []),
      ], 'Send');
    }
    default:
      return undefined;
  }
}

/** What a server entry does, each value on a line of its own; secret-named values as what they are, never their text. */
function serverLines(entry: McpServerEntry): string[] {
  const value = (name: string, text: string) => (isMasked(text) ? '[the value already stored for it]' : isSecretName(name) ? `[secret, ${text.length} characters]` : quoted(text));
  const record = (label: string, values: Record<string, string> | undefined) =>
    Object.entries(values ?? {}).map(([name, text]) => `${label} ${one(name)} = ${value(name, text)}`);
  return [
    ...(entry.command !== undefined ? [`Program: ${quoted(entry.command)}`, `Arguments: ${entry.args?.length ? entry.args.map((arg) => (isMasked(arg) ? '[the value already stored for it]' : quoted(arg))).join(' ') : 'none'}`] : []),
    ...(entry.cwd !== undefined ? [`In the folder: ${quoted(entry.cwd)}`] : []),
    ...record('Environment:', entry.env),
    ...(entry.url !== undefined ? [`Address: ${isMasked(entry.url) ? `${quoted(entry.url)} (its secret parts as already stored)` : quoted(entry.url)}`] : []),
    ...record('Header:', entry.headers),
    ...(entry.roots?.length ? [`Folders offered to it (roots): ${entry.roots.map(quoted).join(' ')}`] : []),
    ...(entry.acceptNewTools ? ['Tools it adds later are accepted without review (acceptNewTools).'] : []),
    ...(entry.oauth?.clientId !== undefined ? [`OAuth client: ${quoted(entry.oauth.clientId)}`] : []),
    ...(entry.oauth?.scope !== undefined ? [`OAuth scope: ${quoted(entry.oauth.scope)}`] : []),
    ...(entry.oauth?.clientMetadataUrl !== undefined ? [`OAuth client metadata: ${quoted(entry.oauth.clientMetadataUrl)}`] : []),
  ];
}

/** A dialog for a change; `lines` are shown as they are, so each must already be made visible. */
function ask(title: string, message: string, lines: string[], approve: string): ConfirmationPrompt {
  const detail = lines.join('\n');
  const prompt: ConfirmationPrompt = {
    options: {
      type: 'warning',
      title,
      message,
      detail,
      // Cancel comes first and is the default, so Enter or Escape never makes the change.
      buttons: ['Cancel', approve],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    },
    approveId: 1,
  };
  const reviewable = message.length + detail.length <= SHOWN_CHARS && lines.length <= SHOWN_LINES;
  return reviewable ? prompt : unapprovable(prompt, 'This is too long to review here; make the change over the HTTP API or the CLI instead.');
}

function unapprovable(prompt: ConfirmationPrompt, why: string): ConfirmationPrompt {
  const lines = prompt.options.detail.split('\n').slice(0, SHOWN_LINES);
  const shown = lines.join('\n').slice(0, SHOWN_CHARS);
  return { options: { ...prompt.options, message: prompt.options.message.slice(0, SHOWN_CHARS), detail: `${shown}…\n\n${why}`, buttons: ['Cancel'] }, approveId: undefined };
}

/** Text on one line, nothing in it hidden or acting: newlines and tabs too become visible stand-ins. */
const one = (text: string): string => visibleText(text).replaceAll('\t', '\u2409');
/** A value as a value: on one line, and quoted, so where it starts and ends shows. */
const quoted = (text: string): string => JSON.stringify(one(text));
/** Text of many lines, each shown marked as part of it, so none can pass for the dialog's own. */
const marked = (text: string): string[] => visibleText(text, { keepNewlines: true }).replaceAll('\t', '\u2409').split('\n').map((line) => `│ ${line}`);
