/**
 * Constraint violations (`ConstraintViolation`, declared in `errors.ts` beside the error that carries them), with
 * Symfony's constraint codes, so clients that already map them keep working.
 */
import { ApiError, type ConstraintViolation } from '../errors.js';

/** Symfony's codes for the violations the framework itself raises. */
export const VIOLATION_CODES = Object.freeze({
  notNull: 'ad32d13f-c3d4-423b-909a-857b961eb720',
  type: 'ba785a8c-82cb-4283-967c-3cf342181b40',
  dateTime: '1a9da513-2640-4f84-9b6a-4d99dcddc628',
  date: '69819696-02ac-4a99-9ff0-14e127c4d1bc',
  invalidRelation: 'a3a2b3a1-7c49-4c5c-9d7e-2f0c6f1e4d10',
  range: '04b91c99-a946-4221-afc5-e65ebac401eb',
  nul: '0f3c8c6e-3a53-4bd3-a8a4-7c5b1f0e2a91',
});

export const createViolation = (propertyPath: string, message: string, code: string): ConstraintViolation =>
  Object.freeze({ propertyPath, message, code });

/** Throws the 400 ConstraintViolationList error when there is anything to report. */
export function assertNoViolations(violations: readonly ConstraintViolation[]): void {
  if (violations.length === 0) return;
  const detail = violations.map((v) => (v.propertyPath ? `${v.propertyPath}: ${v.message}` : v.message)).join('\n');
  throw new ApiError('VALIDATION_FAILED', detail, { violations });
}

/**
 * The 400 ConstraintViolationList error for violations a processor, provider or hook finds itself: throw it, and the
 * write rolls back and the client reads the violations as the validate stage reports them.
 *
 * @example
 * if (article.published) throw validationError([{ propertyPath: 'published', message: 'This article is already published.' }]);
 */
export function validationError(
  violations: readonly { readonly propertyPath: string; readonly message: string; readonly code?: string }[],
): ApiError {
  const found = violations.map((v) => createViolation(v.propertyPath, v.message, v.code ?? CUSTOM_CODE));
  const detail = found.map((v) => (v.propertyPath ? `${v.propertyPath}: ${v.message}` : v.message)).join('\n');
  return new ApiError('VALIDATION_FAILED', detail, { violations: found });
}

/** The code of a violation raised by application code without one of its own (Symfony's Callback code). */
const CUSTOM_CODE = 'c2d1a3b0-6b9e-4f7a-9d2e-1f0c5a7e3b11';
