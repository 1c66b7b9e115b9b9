"""`gomocup-bot brain` (the default command): the Gomocup brain on stdin/stdout.

Nothing but protocol lines ever reaches stdout; logs go to stderr or `--log-file`, with no banner.
After END the process exits at once (`os._exit` once everything is written), even if a search
thread is still winding down. Being the process entry point, `main` does not return.
"""
from __future__ import annotations

import logging
import os
import sys
import time

from gomocup_bot.brain.runner import STARTUP_CAP_S, BrainOptions, live_search_threads, run_brain
from gomocup_bot.core.memory import give_big_blocks_back_to_the_os
from gomocup_bot.brain.timeman import process_age_seconds


def _configure_logging(options: BrainOptions) -> None:
    handler: logging.Handler
    if options.log_file:
        handler = logging.FileHandler(options.log_file, encoding="utf-8")
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(options.log_level)


def _reserve_stdout() -> int:
    """Keep the real stdout for protocol lines only; point fd 1 and `sys.stdout` at stderr.

    A stray `print` or a C-level write from any library (numba, llvmlite) would otherwise land in
    the manager's pipe and be read as a reply.
    """
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol_fd


def main(argv: list[str] | None = None) -> int:
    options = BrainOptions.from_argv(list(sys.argv[1:] if argv is None else argv))
    give_big_blocks_back_to_the_os()  # tables dropped on a new game or size must leave the RSS
    _configure_logging(options)
    protocol_fd = _reserve_stdout()

    import trio

    from protocol.transport import StdioLineStream

    async def serve() -> None:
        stream = StdioLineStream(stdout_fd=protocol_fd)
        # input already waiting at the first read may have been written at process creation;
        # an older process was suspended (GomocupJudge) or kept waiting: date input from now
        age = process_age_seconds()
        origin = None if age is None or age > STARTUP_CAP_S else time.monotonic() - age
        try:
            await run_brain(stream, options=options, input_origin=origin)
        finally:
            await stream.aclose()

    try:
        trio.run(serve)
    except KeyboardInterrupt:
        pass
    # Leave now: managers kill a brain ~0.5 s after END, and a normal interpreter shutdown with
    # numba loaded (or a search thread still winding down) can take longer than that.
    if live_search_threads() > 0:
        logging.getLogger("gomocup_bot.brain.runner").info("exiting with a search thread still running")
    logging.shutdown()
    sys.stderr.flush()
    try:  # a terminal shared with the shell must not stay in non-blocking mode
        os.set_blocking(0, True)
    except OSError:
        pass
    os._exit(0)
