import { ValidationPipe, type ValidationError as ClassValidatorError } from '@nestjs/common';
import { ValidationError } from '@lib/problem-details';

function fieldErrors(errors: ClassValidatorError[], prefix = ''): { field: string; message: string }[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    return [
      ...Object.values(error.constraints ?? {}).map((message) => ({ field, message })),
      ...fieldErrors(error.children ?? [], field),
    ];
  });
}

/** DTO validation for every app: unknown fields refused, every bad field listed in the problem body. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => {
      const list = fieldErrors(errors);
      return new ValidationError(list.map((e) => e.message).join('; ') || 'Request is not valid.', list);
    },
  });
}
