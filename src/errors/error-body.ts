import { ErrorCode } from './error-code';

/** The error shape of every failed HTTP answer (docs/protocol.md §3). */
export interface ErrorBody {
  statusCode: number;
  code: ErrorCode;
  message: string;
  details?: unknown;
  retryable?: boolean;
}
