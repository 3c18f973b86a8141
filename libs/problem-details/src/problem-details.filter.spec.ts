import { BadRequestException, NotFoundException } from '@nestjs/common';
import { defineProblem } from './domain-error';
import { ValidationError } from './problem-details.errors';
import { toProblem } from './problem-details.filter';

describe(toProblem.name, () => {
  it('renders a domain error with its code, status and extensions', () => {
    const problem = toProblem(
      defineProblem({ code: 'ErrRestoreAlreadyInProgress', status: 409, title: 'Conflict' })(
        'A restore is already running.',
        {
          existing_job: { id: 'j' },
        },
      ),
      'req-1',
      '/api/v1/restore/start',
    );
    expect(problem).toEqual({
      type: 'https://guildkeeper.dev/problems/ErrRestoreAlreadyInProgress',
      title: 'Conflict',
      status: 409,
      detail: 'A restore is already running.',
      code: 'ErrRestoreAlreadyInProgress',
      request_id: 'req-1',
      instance: '/api/v1/restore/start',
      existing_job: { id: 'j' },
    });
  });

  it('keeps the field list of a validation error', () => {
    const problem = toProblem(
      new ValidationError('bad', [{ field: 'scope', message: 'scope must be an array' }]),
      null,
    );
    expect(problem.status).toBe(400);
    expect(problem.code).toBe('ErrValidation');
    expect(problem.errors).toEqual([{ field: 'scope', message: 'scope must be an array' }]);
  });

  it('maps Nest HTTP exceptions to stable codes', () => {
    expect(toProblem(new NotFoundException(), null)).toMatchObject({ status: 404, code: 'ErrNotFound' });
    expect(toProblem(new BadRequestException(['a is bad', 'b is bad']), null)).toMatchObject({
      status: 400,
      code: 'ErrValidation',
      detail: 'a is bad; b is bad',
    });
  });

  it('explains a body that is not JSON', () => {
    const parseError = Object.assign(new SyntaxError('Unexpected token'), {
      type: 'entity.parse.failed',
      status: 400,
      expose: true,
    });
    expect(toProblem(parseError, null)).toMatchObject({
      status: 400,
      code: 'ErrValidation',
      detail: 'The request body is not valid JSON.',
    });
    // Where the parser stopped, without its words (which quote the body).
    parseError.message = `Unexpected token 'n', "nope" is not valid JSON at position 1`;
    expect(toProblem(parseError, null).detail).toBe('The request body is not valid JSON (at position 1).');
  });

  it('reports an oversize body as 413', () => {
    const tooLarge = Object.assign(new Error('request entity too large'), {
      type: 'entity.too.large',
      status: 413,
      expose: true,
    });
    expect(toProblem(tooLarge, null)).toMatchObject({ status: 413, code: 'ErrPayloadTooLarge' });
  });

  it('hides the details of unexpected errors', () => {
    const problem = toProblem(new Error('password=hunter2 at db.internal'), 'req-2');
    expect(problem).toMatchObject({ status: 500, code: 'ErrInternal', request_id: 'req-2' });
    expect(JSON.stringify(problem)).not.toContain('hunter2');
  });

  it('answers 503 when the database cannot be reached, and 500 for other database errors', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const terminated = new Error('Connection terminated unexpectedly');
    const wrapped = Object.assign(new Error('query failed'), {
      driverError: { code: '57P01', message: 'terminating' },
    });
    for (const error of [refused, terminated, wrapped]) {
      expect(toProblem(error, 'req-1')).toMatchObject({ status: 503, code: 'ErrUnavailable' });
    }
    const constraint = Object.assign(new Error('duplicate key'), { driverError: { code: '23505' } });
    expect(toProblem(constraint, 'req-1')).toMatchObject({ status: 500, code: 'ErrInternal' });
  });
});
