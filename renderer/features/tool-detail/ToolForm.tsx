/**
 * The argument form, generated from the tool's input schema by RJSF. Validation is off on
 * purpose: the gateway is the boundary and the console shows the gateway's own errors
 * (ARGUMENT_MISSING: query, ...). It also keeps Ajv from compiling code, which the CSP forbids.
 */
import Form from '@rjsf/core';
import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import validator from '@rjsf/validator-ajv8';
import type { ReactNode } from 'react';
import { formButtonTemplates } from './formButtons';

/** The console draws its own actions (Execute, Review and run) instead of RJSF's submit button. */
const uiSchema: UiSchema = { 'ui:submitButtonOptions': { norender: true } };
const templates = { ButtonTemplates: formButtonTemplates };

interface ToolFormProps {
  schema: Record<string, unknown>;
  formData: unknown;
  disabled?: boolean;
  onChange(formData: unknown): void;
  onSubmit(formData: unknown): void;
  /** Rendered inside the form so Enter in a field submits it. */
  children?: ReactNode;
}

export function ToolForm({ schema, formData, disabled = false, onChange, onSubmit, children }: ToolFormProps) {
  return (
    <Form
      className="tool-form"
      schema={schema as RJSFSchema}
      uiSchema={uiSchema}
      templates={templates}
      validator={validator}
      noValidate
      noHtml5Validate
      showErrorList={false}
      formData={formData}
      disabled={disabled}
      onChange={(event) => onChange(event.formData)}
      onSubmit={(event) => onSubmit(event.formData)}
    >
      {children}
    </Form>
  );
}

/** The arguments exactly as they will be sent: empty fields (undefined) dropped, as JSON would. */
export function toArguments(formData: unknown): Record<string, unknown> {
  if (typeof formData !== 'object' || formData === null || Array.isArray(formData)) return {};
  return JSON.parse(JSON.stringify(formData)) as Record<string, unknown>;
}

export const hasArguments = (schema: Record<string, unknown>) =>
  typeof schema.properties === 'object' && schema.properties !== null && Object.keys(schema.properties).length > 0;
