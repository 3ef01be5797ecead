import type { WidgetProps } from '@rjsf/utils';

import { ToggleControl } from '../controls';

/** `toggle` (toggle kind): a boolean drawn as a switch with its label. */
export function ToggleWidget(props: WidgetProps) {
  const { id, value, onChange, label, disabled, readonly, schema } = props;
  return (
    <ToggleControl
      id={id}
      label={label}
      checked={value === true}
      disabled={disabled || readonly}
      onChange={(checked) => onChange(checked)}
      description={schema.description}
    />
  );
}
