/**
 * The form's inputs and error lines, in place of RJSF's defaults for one reason: what a screen
 * reader hears. RJSF's widgets point `aria-describedby` at an error, a description and a help
 * element whether or not they exist, and never say a field is invalid. These say
 * `aria-invalid` when the field has a problem and are described by the elements that are on
 * the page: its description, then its error. Everything else is RJSF's own behaviour.
 */
import {
  descriptionId,
  enumOptionSelectedValue,
  enumOptionValueDecoder,
  enumOptionValueEncoder,
  errorId,
  examplesId,
  getInputProps,
  getOptionValueFormat,
  type BaseInputTemplateProps,
  type FieldErrorProps,
  type WidgetProps,
} from '@rjsf/utils';
import type { ChangeEvent, FocusEvent } from 'react';

/** What a field's input needs to be announced right: invalid or not, and the ids that describe it. */
function fieldAria({ id, rawErrors, hideError, hideLabel, options, schema }: Pick<WidgetProps, 'id' | 'rawErrors' | 'hideError' | 'hideLabel' | 'options' | 'schema'>) {
  const invalid = !hideError && (rawErrors?.length ?? 0) > 0;
  const hasDescription = !hideLabel && Boolean(options.description ?? schema.description);
  const ids = [hasDescription && descriptionId(id), invalid && errorId(id)].filter(Boolean);
  return { 'aria-invalid': invalid || undefined, 'aria-describedby': ids.length ? ids.join(' ') : undefined };
}

export function BaseInputTemplate(props: BaseInputTemplateProps) {
  const { id, htmlName, value, readonly, disabled, autofocus, onBlur, onFocus, onChange, onChangeOverride, options, schema, type, required, placeholder } = props;
  const inputProps = getInputProps(schema, type, options);
  const numeric = inputProps.type === 'number' || inputProps.type === 'integer';
  const shown = numeric ? (value || value === 0 ? value : '') : (value ?? '');
  const examples = Array.isArray(schema.examples) ? (schema.examples as unknown[]) : undefined;
  return (
    <>
      <input
        id={id}
        name={htmlName || id}
        className="form-control"
        readOnly={readonly}
        disabled={disabled}
        autoFocus={autofocus}
        required={required}
        placeholder={placeholder}
        value={shown}
        {...inputProps}
        list={examples ? examplesId(id) : undefined}
        onChange={onChangeOverride ?? ((event: ChangeEvent<HTMLInputElement>) => onChange(event.target.value === '' ? options.emptyValue : event.target.value))}
        onBlur={(event: FocusEvent<HTMLInputElement>) => onBlur(id, event.target.value)}
        onFocus={(event: FocusEvent<HTMLInputElement>) => onFocus(id, event.target.value)}
        {...fieldAria(props)}
      />
      {examples && (
        <datalist id={examplesId(id)}>
          {examples.map((example) => (
            <option key={String(example)} value={String(example)} />
          ))}
        </datalist>
      )}
    </>
  );
}

/** Long text: a multi-line box that grows with its rows option (see argumentUi.ts for when). */
export function TextareaWidget(props: WidgetProps) {
  const { id, htmlName, value, required, disabled, readonly, autofocus, onChange, onBlur, onFocus, options, placeholder } = props;
  return (
    <textarea
      id={id}
      name={htmlName || id}
      className="form-control"
      value={typeof value === 'string' ? value : ''}
      placeholder={placeholder}
      required={required}
      disabled={disabled}
      readOnly={readonly}
      autoFocus={autofocus}
      rows={typeof options.rows === 'number' ? options.rows : 5}
      spellCheck={false}
      onChange={(event) => onChange(event.target.value === '' ? options.emptyValue : event.target.value)}
      onBlur={(event) => onBlur(id, event.target.value)}
      onFocus={(event) => onFocus(id, event.target.value)}
      {...fieldAria(props)}
    />
  );
}

export function SelectWidget(props: WidgetProps) {
  const { schema, id, htmlName, options, value, required, disabled, readonly, multiple = false, autofocus, onChange, onBlur, onFocus, placeholder } = props;
  const { enumOptions, enumDisabled, emptyValue } = options;
  const format = getOptionValueFormat(options);
  const read = (event: ChangeEvent<HTMLSelectElement> | FocusEvent<HTMLSelectElement>) => {
    const chosen = multiple ? [...event.target.options].filter((option) => option.selected).map((option) => option.value) : event.target.value;
    return enumOptionValueDecoder(chosen, enumOptions, format, emptyValue);
  };
  const selected = enumOptionSelectedValue(value, enumOptions, multiple, format, multiple ? [] : '');
  return (
    <select
      id={id}
      name={htmlName || id}
      className="form-control"
      multiple={multiple}
      value={selected as string | string[]}
      required={required}
      disabled={disabled || readonly}
      autoFocus={autofocus}
      onChange={(event) => onChange(read(event))}
      onBlur={(event) => onBlur(id, read(event))}
      onFocus={(event) => onFocus(id, read(event))}
      {...fieldAria(props)}
    >
      {!multiple && schema.default === undefined && <option value="">{placeholder}</option>}
      {(enumOptions ?? []).map(({ value: optionValue, label }, index) => (
        <option key={String(optionValue)} value={enumOptionValueEncoder(optionValue, index, format)} disabled={enumDisabled?.includes(optionValue)}>
          {label}
        </option>
      ))}
    </select>
  );
}

export function CheckboxWidget(props: WidgetProps) {
  const { schema, id, htmlName, value, disabled, readonly, autofocus, label, hideLabel, onChange, onBlur, onFocus, options, registry, uiSchema } = props;
  const description = options.description ?? schema.description;
  const Description = registry.templates.DescriptionFieldTemplate;
  return (
    <div className={`checkbox ${disabled || readonly ? 'disabled' : ''}`}>
      {!hideLabel && description && <Description id={descriptionId(id)} description={description} schema={schema} uiSchema={uiSchema} registry={registry} />}
      <label>
        <input
          type="checkbox"
          id={id}
          name={htmlName || id}
          checked={value === true}
          disabled={disabled || readonly}
          autoFocus={autofocus}
          onChange={(event) => onChange(event.target.checked)}
          onBlur={(event) => onBlur(id, event.target.checked)}
          onFocus={(event) => onFocus(id, event.target.checked)}
          {...fieldAria(props)}
        />
        {!hideLabel && <span>{label}</span>}
      </label>
    </div>
  );
}

/** A field's problems, under it, with the id its input names in aria-describedby. */
export function FieldErrorTemplate({ errors = [], fieldPathId }: FieldErrorProps) {
  const shown = errors.filter((error) => typeof error === 'string' && error !== '');
  if (shown.length === 0) return null;
  return (
    <div id={errorId(fieldPathId)} className="field-error">
      {shown.map((error, index) => (
        <p key={index}>{error}</p>
      ))}
    </div>
  );
}

export const argumentWidgets = { TextareaWidget, SelectWidget, CheckboxWidget };
