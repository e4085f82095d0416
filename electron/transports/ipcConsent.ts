/**
 * What the desktop window may not do on its own word. Over IPC the page is the operator, so a
 * page running injected script would be the operator too: it could save an MCP server whose
 * command starts at once, start a Harn script, hand out an agent token, accept a changed contract,
 * re-enable what the operator switched off or change a server's policy. Those changes are put to
 * the operator in a native dialog the page can neither draw nor answer, as a tool call needing
 * confirmation is; the rest (reads, and changes that only take access away) go through as asked.
 *
 * The dialog shows what will happen, in the request's own terms: every name and value the page
 * sent is shown with its control, bidirectional and invisible characters as visible stand-ins,
 * and an MCP server entry's secret values masked.
 */
import { operations, type OperationName } from '../../shared/api';
import { transportOf } from '../../shared/mcp';
import { visibleText } from '../../shared/visibleText';
import { maskEntry } from '../providers/mcp/secrets';

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

/** The most of a change (a program's command line, a Harn prompt, a policy) a dialog shows. */
const SHOWN_CHARS = 2000;

/**
 * The dialog that must approve this operation first, when it comes from the window; undefined
 * when it needs none, or when its payload is not even well formed (dispatch refuses it then).
 */
export function consentPrompt(operation: OperationName, payload: unknown): ConfirmationPrompt | undefined {
  const parsed = operations[operation].input.safeParse(payload);
  if (!parsed.success) return undefined;
  const input = parsed.data as Record<string, unknown>;
  switch (operation) {
    case 'saveMcpServer': {
      const { name, entry } = input as { name: string; entry: Parameters<typeof maskEntry>[0] };
      const shown = maskEntry(entry).entry;
      const what =
        transportOf(entry) === 'stdio'
          ? `Capstan will start this program now, and each time it connects to the server:\n${[shown.command!, ...(shown.args ?? [])].join(' ')}${shown.cwd ? `\nin ${shown.cwd}` : ''}${namesOf('Environment', shown.env)}`
          : `Capstan will connect to ${shown.url}${namesOf('Headers', shown.headers)}`;
      return ask('Save MCP server', `Save the MCP server “${name}”?`, `${what}${shown.enabled === false ? '\n(Saved disabled: nothing starts until it is enabled.)' : ''}`, 'Save');
    }
    case 'setServerPolicy': {
      const { name, ...policy } = input as { name: string };
      return ask('Change server policy', `Change the policy of the MCP server “${name}”?`, `The policy it will have:\n${JSON.stringify(policy, null, 2)}`, 'Change policy');
    }
    case 'acceptPin': {
      const { id, hash } = input as { id: string; hash?: string };
      return ask('Accept changed tool', `Accept ${id} as its server now describes it?`, `Calls to it will run under the contract the server declares now${hash ? ` (${hash})` : ''}, which you reviewed in the console.`, 'Accept');
    }
    case 'startHarnRun': {
      const { script, prompt, sessionId } = input as { script: string; prompt?: string; sessionId?: string };
      return ask('Run Harn script', `Run the Harn script ${script}?`, `Harn starts as a process of its own and calls tools through Capstan, in the session ${sessionId ?? 'operator'}.${prompt ? `\n\nPrompt:\n${prompt}` : ''}`, 'Run');
    }
    case 'createAgent': {
      const { name } = input as { name: string };
      return ask('Create agent token', `Create an agent token for “${name}”?`, `Whoever holds the token can discover and call tools as agent:${name}, within the agents' grants, until you revoke it.`, 'Create token');
    }
    case 'setCapabilityRevoked': {
      const { id, revoked } = input as { id: string; revoked: boolean };
      return revoked ? undefined : ask('Restore capability', `Restore ${id}?`, 'It was revoked, so every call to it was refused; restored, it can be called again.', 'Restore');
    }
    case 'setProviderEnabled': {
      const { provider, enabled } = input as { provider: string; enabled: boolean };
      return enabled ? ask('Enable provider', `Enable the provider “${provider}”?`, 'Its capabilities can be called again; an MCP server’s program is started, or its URL connected to.', 'Enable') : undefined;
    }
    default:
      return undefined;
  }
}

/** A change too long to be read whole in a dialog cannot be approved there, as a call's long arguments cannot. */
function ask(title: string, message: string, detail: string, approve: string): ConfirmationPrompt {
  const shown = visibleText(detail, { keepNewlines: true });
  const reviewable = shown.length <= SHOWN_CHARS && message.length <= SHOWN_CHARS;
  return {
    options: {
      type: 'warning',
      title,
      message: visibleText(message.slice(0, SHOWN_CHARS)),
      detail: reviewable ? shown : `${shown.slice(0, SHOWN_CHARS)}…\n\nThis is too long to review here; make the change over the HTTP API or the CLI instead.`,
      // Cancel comes first and is the default, so Enter or Escape never makes the change.
      buttons: reviewable ? ['Cancel', approve] : ['Cancel'],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    },
    approveId: reviewable ? 1 : undefined,
  };
}

const namesOf = (label: string, record: Record<string, string> | undefined): string => {
  const names = Object.keys(record ?? {});
  return names.length === 0 ? '' : `\n${label}: ${names.join(', ')}`;
};
