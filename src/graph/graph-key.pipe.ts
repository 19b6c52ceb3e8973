import { Injectable, PipeTransform } from '@nestjs/common';
import { AppError } from '../errors/app-error';
import { graphKeyProblem } from './graph-key.rule';

/** The `:graphKey` of a route's path, checked by the rule every route shares (graph-key.rule.ts): 400 otherwise. */
@Injectable()
export class GraphKeyPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    const problem = graphKeyProblem(value);
    if (problem)
      throw AppError.badRequest(`Invalid graph key in the path: graphKey ${problem}`, [
        { field: 'graphKey', problems: [`graphKey ${problem}`] },
      ]);
    return value as string;
  }
}
