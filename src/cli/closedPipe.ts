/**
 * Output that goes to a pipe closed early (`supplier-sync status | head -3`) ends quietly: the
 * first EPIPE on stdout or stderr calls `onClosed` once (the command is asked to stop, as by a
 * signal), and that write and every later one into the closed pipe are dropped, instead of an
 * unhandled 'error' event that crashes the process with a stack trace. Other stream errors are
 * thrown as before.
 */
export function endQuietlyOnClosedPipe(
  streams: readonly NodeJS.WritableStream[],
  onClosed: () => void,
): void {
  let closed = false;
  const onError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || (closed && err.code === 'ERR_STREAM_DESTROYED')) {
      if (!closed) {
        closed = true;
        onClosed();
      }
      return;
    }
    throw err;
  };
  for (const stream of streams) stream.on('error', onError);
}
