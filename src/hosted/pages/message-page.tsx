import type { ComponentChildren } from 'preact';

/** A page with a heading and a message (expired, declined, invalid link), with optional actions below. */
export function MessagePage(props: { title: string; message: string; children?: ComponentChildren }) {
  return (
    <>
      <h1>{props.title}</h1>
      <p role="status">{props.message}</p>
      {props.children}
    </>
  );
}
