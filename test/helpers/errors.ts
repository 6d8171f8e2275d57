import { AppError } from '../../src/core/errors.js';

/** The AppError `fn` throws; fails the test when it throws nothing or something else. */
export function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}
