import { describe, expect, it } from 'vitest';
import { formFields } from '../../src/hosted/form-fields.js';

describe('formFields', () => {
  it('keeps string fields and drops repeated names (arrays) and anything not a string', () => {
    expect(formFields({ t: 'tok', csrf: ['a', 'b'], n: 1, o: { x: 'y' } })).toEqual({ t: 'tok' });
  });

  it('reads nothing from a missing or non-object body', () => {
    expect(formFields(undefined)).toEqual({});
    expect(formFields('t=tok')).toEqual({});
    expect(formFields(null)).toEqual({});
  });
});
