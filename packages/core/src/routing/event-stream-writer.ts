/**
 * How a Mercure subscriber's bytes reach its connection (`routing/mercure-routes.ts`). The response's body is a stream
 * that Fastify pipes into Node's response; a chunk pushed there goes through the stream, the pipe and the response,
 * which frames it as an HTTP/1.1 chunk in four socket writes, corked and written together on the next tick. A flush of
 * the hub does that once per subscriber, for the same bytes: with a hundred subscribers, that bookkeeping and its
 * garbage were a visible part of each write's cost (docs/performance.md).
 *
 * So once the response's head is out and nothing waits in the stream or in the response, a chunk is written straight
 * on the socket, framed as an HTTP/1.1 chunk once for all the subscribers that are sent the same buffer in a row (the
 * hub's outbox hands every member of a group the same one). The socket's queue keeps the order of everything written;
 * when the stream ends, the response writes the body's last chunk after it, as before. Other connections (HTTP/2,
 * HTTP/1.0, which has no chunks, `inject`'s simulated socket), a body that is not the stream itself (an `onSend` hook
 * that compresses it) and a stream with bytes waiting keep the stream.
 */
import type { ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';

const CRLF = Buffer.from('\r\n');

/** The last chunk framed, and its frame: the subscribers of a group are written the same buffer one after another. */
let lastChunk: Buffer | undefined;
let lastFrame: Buffer = CRLF;

/** `chunk` as one HTTP/1.1 chunk (its size in hexadecimal, the bytes, a line end). */
function frameChunk(chunk: Buffer): Buffer {
  if (chunk !== lastChunk) {
    lastFrame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`, 'latin1'), chunk, CRLF]);
    lastChunk = chunk;
  }
  return lastFrame;
}

/** The subscriber's `write`: straight on its socket when that keeps the order, else into the response's stream. */
export function createEventStreamWriter(
  stream: Readable,
  response: ServerResponse,
  httpVersionMajor: number,
): (chunk: Buffer) => void {
  const http1 = httpVersionMajor === 1;
  // The stream itself is the response's body: no onSend hook (compression, say) put another stream in its place.
  let piped = false;
  response.once('pipe', (source) => {
    piped = source === stream;
  });
  return (chunk) => {
    const { socket } = response;
    if (
      http1 &&
      piped &&
      chunk.length > 0 &&
      response.headersSent &&
      response.chunkedEncoding &&
      !response.writableEnded &&
      stream.readableLength === 0 &&
      socket instanceof Socket &&
      socket.writable &&
      // Nothing held by the response itself, only what it already gave the socket.
      response.writableLength === socket.writableLength
    ) {
      socket.write(frameChunk(chunk));
      return;
    }
    stream.push(chunk);
  };
}
