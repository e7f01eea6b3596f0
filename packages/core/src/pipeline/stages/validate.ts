/**
 * Stage 8, validate. Reads `context.data` and `context.violations`; throws the 400 ConstraintViolationList when
 * anything is wrong, so nothing is written.
 */
import { validateEntity } from '../../validation/validate.js';
import type { OperationContext } from '../operation-context.js';

export function validate(context: OperationContext): void {
  validateEntity(context.runtime.registry, context.resource, context.data!, context.violations);
}
