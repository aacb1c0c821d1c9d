"""What a worker process runs before its first task: a watch on its parent.

A loky worker that loses its parent (the main process killed by ``kill -9``, say) would
otherwise stay alive for good, blocked on a pipe and holding the terminal's stdout open, and
with it loky's resource tracker. The watch is a daemon thread that ends the process once its
parent has changed (the orphan is adopted by init or a subreaper).
"""
from __future__ import annotations

import os
import threading
import time

#: seconds between two looks at the parent
INTERVAL = 0.2


def watch_parent(parent: int | None = None, interval: float = INTERVAL) -> None:
    """Start the watch (a loky ``initializer``, ``initargs=(os.getpid(),)``): exit at once
    when the parent is gone. ``parent``: the process that started the worker, given by it,
    since a worker slow to start may be orphaned before this runs (its parent then already
    the reaper's pid)."""
    if parent is None:
        parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="glory-ai-parent-watch", daemon=True).start()
