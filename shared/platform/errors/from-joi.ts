import type Joi from 'joi';
import { ValidationError, ValidationIssue } from './app-error';

/** Turns joi's report into the spec's `detail[]` items, `loc` rooted at where the value came from. */
export function fromJoi(error: Joi.ValidationError, root: 'body' | 'query' | 'path' | 'header'): ValidationError {
  const issues: ValidationIssue[] = error.details.map((d) => {
    const { label: _label, key: _key, value, ...rest } = d.context ?? {};
    const issue: ValidationIssue = {
      loc: [root, ...d.path.map(String)],
      msg: d.message.replace(/"/g, ''),
      type: d.type,
    };
    if (value !== undefined) issue.input = value;
    if (Object.keys(rest).length > 0) issue.ctx = rest;
    return issue;
  });
  return new ValidationError(issues);
}
