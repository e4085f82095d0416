import type { CapabilityContract, Diagnostic } from '../../../shared/capability';

/**
 * The diagnostics about one capability: those naming it (by id, or by name within its provider,
 * as a skill file that failed to parse can only guess its name) and, for a skill, those about
 * its file.
 */
export function capabilityDiagnostics(diagnostics: readonly Diagnostic[], contract: CapabilityContract): Diagnostic[] {
  return diagnostics.filter(
    (diagnostic) =>
      diagnostic.capability === contract.id ||
      (diagnostic.provider === contract.provider && diagnostic.capability === contract.name) ||
      (contract.kind === 'skill' && diagnostic.path === contract.path),
  );
}
