/** Keeps one broken view (say, a schema the form library cannot draw) from blanking the console. */
import { Component, type ReactNode } from 'react';

interface Props {
  /** What failed, in the operator's words: "This tool's form could not be drawn". */
  what: string;
  children: ReactNode;
}

export class ErrorBoundary extends Component<Props, { error: Error | null }> {
  override state = { error: null as Error | null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="notice notice--error" role="alert">
        <strong>{this.props.what}.</strong> {error.message}
      </div>
    );
  }
}
