import { InertText } from './inert-text';

/** An error a person must read, next to what failed (announced to screen readers); nothing when there is none. */
export function FieldError({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p role="alert" className="field-error">
      <InertText text={message} />
    </p>
  );
}
