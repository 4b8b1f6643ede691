import { BaseError, ContractFunctionRevertedError, HttpRequestError, SocketClosedError, TimeoutError } from 'viem';
import { AppError } from '../../platform/errors/index';

/**
 * The chain's RPC did not answer (refused, timed out, closed the socket). During a request this
 * is 503 `chain_unavailable` through the one error handler (it is an AppError); in a settlement
 * it is a retryable attempt failure.
 */
export class ChainUnavailableError extends AppError {
  constructor(message = 'the chain RPC is unreachable; retry shortly') {
    super(503, 'chain_unavailable', message);
  }
}

// RPC URLs often carry an API key in the path or query (Alchemy, Infura, QuickNode): viem puts
// the URL in its error messages, so every message that leaves shared/x402 goes through this.
const URL_PATTERN = /\b(?:https?|wss?):\/\/[^\s"'<>`]+/gi;

/** The text with every URL replaced by `<url>`. */
export function stripUrls(text: string): string {
  return text.replace(URL_PATTERN, '<url>');
}

const MAX_MESSAGE = 200;

function short(text: string): string {
  const line = stripUrls(text.replace(/\s*\n\s*/g, ' ')).trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
}

/** viem's headline and the node's own words, without the request dump, docs links and version. */
function viemSummary(err: BaseError): string {
  const head = err.shortMessage.split('\n')[0] ?? '';
  const details = err.details && !head.includes(err.details) ? err.details.split('\n')[0] : '';
  return details ? `${head} ${details}` : head;
}

/** True when the error (or one it wraps) means the RPC endpoint did not answer. */
export function isChainTransportError(err: unknown): boolean {
  if (err instanceof ChainUnavailableError) return true;
  if (err instanceof BaseError) {
    return Boolean(
      err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof SocketClosedError),
    );
  }
  const e = err as { name?: string; message?: string; cause?: { code?: string } } | undefined;
  return Boolean(
    e &&
    (e.name === 'TimeoutError' ||
      /fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT/i.test(`${e.message ?? ''} ${e.cause?.code ?? ''}`)),
  );
}

/** Stable code and one short, URL-free line for any failure of a chain or facilitator call. */
export function describeChainFailure(err: unknown): { code: string; message: string } {
  if (err instanceof AppError) return { code: err.code, message: short(err.message) };
  if (isChainTransportError(err)) {
    const detail = err instanceof BaseError ? viemSummary(err) : String((err as Error)?.message ?? err);
    return { code: 'chain_unavailable', message: short(`RPC unreachable: ${detail}`) };
  }
  if (err instanceof BaseError) {
    const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError)
      return { code: 'settlement_reverted', message: short(reverted.reason ?? reverted.shortMessage) };
    const text = `${err.shortMessage} ${err.details ?? ''}`;
    if (/nonce too low/i.test(text)) return { code: 'nonce_too_low', message: short(viemSummary(err)) };
    if (/replacement transaction underpriced|already known/i.test(text))
      return { code: 'nonce_in_use', message: short(viemSummary(err)) };
    return { code: 'chain_error', message: short(viemSummary(err)) };
  }
  const named = err as { name?: string; code?: unknown; message?: string; type?: string };
  const code = typeof named?.type === 'string' && /^[a-z_]+$/.test(named.type) ? named.type : 'settlement_error';
  return { code, message: short(named?.message ?? String(err)) };
}
